package dev.dedup.agent.contract;

import dev.dedup.agent.config.WindowOptions;
import java.util.Map;

/** The contract against the embedded store with every namespace filed by event time. */
class EmbeddedEventTimeContractTest extends EmbeddedContractTest {

    @Override
    protected boolean eventTimes() {
        return true;
    }

    @Override
    protected WindowOptions windows() {
        return new WindowOptions(WINDOW, Map.of(SHORT_NS, SHORT_WINDOW), Map.of("*", 200));
    }
}
