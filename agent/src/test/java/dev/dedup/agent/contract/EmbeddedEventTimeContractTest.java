package dev.dedup.agent.contract;

import dev.dedup.agent.config.WindowOptions;

/** The contract against the embedded store with every namespace filed by event time. */
class EmbeddedEventTimeContractTest extends EmbeddedContractTest {

    @Override
    protected boolean eventTimes() {
        return true;
    }

    @Override
    protected WindowOptions windows() {
        return everyNamespaceByEventTime();
    }
}
