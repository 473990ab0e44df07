package dev.dedup.agent.contract;

import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The contract against the embedded store: items without event times; every item with its event time and no event
 * setting, so that each namespace's window counts on its event clock; and every namespace given an event rate.
 */
@ParameterizedClass
@EnumSource(names = {"NONE", "EVENT_CLOCKS", "EVENT_RATES"})
class EmbeddedContractTest extends ClaimContractSuite {

    @Parameter
    Events events;

    @Override
    protected ContractAgents.Store store() {
        return ContractAgents.embedded();
    }

    @Override
    protected Events events() {
        return events;
    }
}
