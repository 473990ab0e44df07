package dev.dedup.agent.contract;

/** The ranges contract against the embedded store. */
class EmbeddedRangeContractTest extends RangeContractSuite {

    @Override
    protected ContractAgents.Store store() {
        return ContractAgents.embedded();
    }
}
