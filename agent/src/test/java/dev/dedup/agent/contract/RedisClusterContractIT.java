package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisCluster;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract against a Redis Cluster of three masters, each with a replica, started by the test: claims
 * spread over {@link RedisOptions#DEFAULT_CLUSTER_GROUPS} groups, each one hash slot, with the near-cache in
 * front.
 */
class RedisClusterContractIT extends ClaimContractSuite {

    @TempDir
    static Path dir;

    private RedisCluster cluster;

    @Override
    protected Agent startAgent(FakeClock clock) {
        try {
            cluster = RedisCluster.start(dir.resolve("cluster"), 3);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return ContractAgents.cluster(
                dir,
                cluster,
                RedisOptions.DEFAULT_CLUSTER_GROUPS,
                NearCacheOptions.DEFAULT_MAX_ENTRIES,
                MAX_BATCH,
                MAX_BODY,
                windows(),
                clock);
    }

    @AfterAll
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }
}
