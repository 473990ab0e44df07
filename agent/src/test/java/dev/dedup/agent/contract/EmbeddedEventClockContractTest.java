package dev.dedup.agent.contract;

/**
 * The contract against the embedded store, every item sent with its event time and no event setting: each
 * namespace's window counts on its event clock.
 */
class EmbeddedEventClockContractTest extends EmbeddedContractTest {

    @Override
    protected boolean eventTimes() {
        return true;
    }

    @Override
    protected boolean timeBuckets() {
        return false;
    }
}
