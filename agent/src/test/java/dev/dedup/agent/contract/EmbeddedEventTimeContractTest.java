package dev.dedup.agent.contract;

/**
 * The contract against the embedded store with every namespace given an event rate: every item must carry its
 * event time, and windows count on the namespaces' event clocks (the rate only sizes the Redis tier's time buckets).
 */
class EmbeddedEventTimeContractTest extends EmbeddedContractTest {

    @Override
    protected boolean eventTimes() {
        return true;
    }

    @Override
    protected boolean eventClocks() {
        return true;
    }
}
