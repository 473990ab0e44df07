package dev.dedup.agent.contract;

/** The contract against the embedded store. */
class EmbeddedContractTest extends ClaimContractSuite {

    @Override
    protected ContractAgents.Store store() {
        return ContractAgents.embedded();
    }
}
