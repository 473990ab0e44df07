package dev.dedup.agent.contract;

import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.testing.RedisServer.Binary;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ranges contract against Redis the test starts: one shard, three shards, one shard that lets the agent in only
 * as the user the shipped tier gives it ({@link dev.dedup.agent.testing.RedisAcl#AGENT}, its {@code ACL LOG} empty
 * at the end), and a Redis Cluster of three masters with a replica each.
 */
@ParameterizedClass
@MethodSource("stores")
class RedisRangeContractIT extends RangeContractSuite {

    static Stream<Arguments> stores() {
        long nearCache = NearCacheOptions.DEFAULT_MAX_ENTRIES;
        return Stream.of(
                argumentSet("one Redis shard", new ContractAgents.Shards(Binary.REDIS, 1, nearCache)),
                argumentSet("three Redis shards", new ContractAgents.Shards(Binary.REDIS, 3, nearCache)),
                argumentSet(
                        "one Redis shard behind the shipped ACL",
                        new ContractAgents.Shards(Binary.REDIS, 1, nearCache, true)),
                argumentSet("a Redis Cluster", new ContractAgents.Cluster()));
    }

    @Parameter
    ContractAgents.RedisStore redis;

    @Override
    protected ContractAgents.Store store() {
        return redis;
    }

    @Override
    protected void afterTests(ContractAgents.Store store) throws IOException {
        redis.assertNothingRefused();
    }
}
