package dev.dedup.agent.contract;

/** The contract against the embedded store with every namespace filed by event time. */
class EmbeddedEventTimeContractTest extends EmbeddedContractTest {

    @Override
    protected boolean eventTimes() {
        return true;
    }
}
