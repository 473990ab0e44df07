package dev.dedup.agent.contract;

import static dev.dedup.agent.contract.ClaimContractSuite.Events.EVENT_CLOCKS;
import static dev.dedup.agent.contract.ClaimContractSuite.Events.NONE;
import static dev.dedup.agent.contract.ClaimContractSuite.Events.TIME_BUCKETS;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.params.provider.Arguments.argumentSet;

import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.RedisServer.Binary;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract against Redis the test starts, with the near-cache in front unless said otherwise: Redis shards,
 * Valkey shards (the agent's scripts and replies must work unchanged on Valkey), the major versions
 * deploy/kubernetes runs, shards that let the agent in only as the user the shipped tier gives it, and a Redis
 * Cluster of three masters with a replica each, its claims spread over {@code DEFAULT_CLUSTER_GROUPS} groups.
 *
 * <p>Behind an ACL ({@link dev.dedup.agent.testing.RedisAcl#AGENT}: its keys, its channel and the commands it sends,
 * no more; the default user off), every claim, release, sliding renewal and event clock of the suite goes through
 * that ACL, and each server's {@code ACL LOG} is empty at the end, so that a command the agent needs and the ACL
 * lacks fails here. With time buckets, a low event rate (2 buckets a second) and 16 planned records a bucket make the
 * suite's claims share buckets and overfill them. A server program that is missing ({@code valkey-server}, which CI
 * installs from Debian's bookworm-backports; {@code redis-server-8.0} and {@code valkey-server-8.1}, Debian trixie's,
 * which .ci/run provides) fails its runs, it does not skip them.
 */
@ParameterizedClass
@MethodSource("stores")
class RedisContractIT extends ClaimContractSuite {

    static Stream<Arguments> stores() {
        return Stream.of(
                argumentSet("one Redis shard", shards(Binary.REDIS, 1), NONE),
                argumentSet("one Redis shard, event clocks", shards(Binary.REDIS, 1), EVENT_CLOCKS),
                argumentSet("one Redis shard, time buckets", shards(Binary.REDIS, 1), TIME_BUCKETS),
                argumentSet(
                        "one Redis shard, no near-cache: every answer from the script",
                        new ContractAgents.Shards(Binary.REDIS, 1, 0),
                        NONE),
                argumentSet("one Redis shard behind the shipped ACL", acl(), NONE),
                argumentSet("one Redis shard behind the shipped ACL, time buckets", acl(), TIME_BUCKETS),
                argumentSet("three Redis shards", shards(Binary.REDIS, 3), NONE),
                argumentSet("three Redis shards, time buckets", shards(Binary.REDIS, 3), TIME_BUCKETS),
                argumentSet("one Valkey 8 shard", shards(Binary.VALKEY, 1), NONE),
                argumentSet("one Valkey 8 shard, time buckets", shards(Binary.VALKEY, 1), TIME_BUCKETS),
                argumentSet("three Valkey 8 shards", shards(Binary.VALKEY, 3), NONE),
                argumentSet("three Valkey 8 shards, time buckets", shards(Binary.VALKEY, 3), TIME_BUCKETS),
                argumentSet("one Redis 8.0 shard", shards(Binary.REDIS_8_0, 1), NONE),
                argumentSet("one Valkey 8.1 shard", shards(Binary.VALKEY_8_1, 1), NONE),
                argumentSet("a Redis Cluster", new ContractAgents.Cluster(), NONE),
                argumentSet("a Redis Cluster, event clocks", new ContractAgents.Cluster(), EVENT_CLOCKS),
                argumentSet("a Redis Cluster, time buckets", new ContractAgents.Cluster(), TIME_BUCKETS));
    }

    private static ContractAgents.Shards shards(Binary binary, int count) {
        return new ContractAgents.Shards(binary, count, NearCacheOptions.DEFAULT_MAX_ENTRIES);
    }

    private static ContractAgents.Shards acl() {
        return new ContractAgents.Shards(Binary.REDIS, 1, NearCacheOptions.DEFAULT_MAX_ENTRIES, true);
    }

    @Parameter(0)
    ContractAgents.RedisStore redis;

    @Parameter(1)
    Events events;

    @Override
    protected ContractAgents.Store store() {
        return redis;
    }

    @Override
    protected Events events() {
        return events;
    }

    @Override
    protected void afterTests(ContractAgents.Store store) throws IOException {
        redis.assertNothingRefused();
    }

    @Test
    void everyServerRunsTheProgramNamed() throws IOException {
        assertFalse(redis.servers().isEmpty());
        for (RedisServer server : redis.servers()) {
            String info = server.command("INFO", "server");
            switch (redis.binary()) {
                case REDIS -> assertFalse(info.contains("valkey_version:"), () -> "not Redis: " + info);
                case REDIS_8_0 -> assertTrue(info.contains("redis_version:8.0."), () -> "not Redis 8.0: " + info);
                case VALKEY -> assertTrue(info.contains("valkey_version:8."), () -> "not Valkey 8: " + info);
                case VALKEY_8_1 -> assertTrue(info.contains("valkey_version:8.1."), () -> "not Valkey 8.1: " + info);
            }
        }
    }
}
