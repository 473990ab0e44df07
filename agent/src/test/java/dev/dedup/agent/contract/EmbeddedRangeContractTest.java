package dev.dedup.agent.contract;

import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** The ranges contract against the embedded store. */
@ParameterizedClass
@MethodSource("stores")
class EmbeddedRangeContractTest extends RangeContractSuite {

    static Stream<ContractAgents.Store> stores() {
        return Stream.of(ContractAgents.embedded());
    }

    @Parameter
    ContractAgents.Store embedded;

    @Override
    protected ContractAgents.Store store() {
        return embedded;
    }
}
