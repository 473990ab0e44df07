package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisCluster;
import dev.dedup.agent.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Agents of the contract suites: on the embedded store, or on Redis shards or a Redis Cluster the suite starts. */
final class ContractAgents {

    private ContractAgents() {}

    private static HttpOptions http(int maxBatch, long maxBody) {
        return HttpOptions.builder()
                .port(0)
                .maxBatch(maxBatch)
                .maxBody(maxBody)
                .idleTimeout(Duration.ofSeconds(30))
                .eventLoops(2)
                .shutdownGrace(Duration.ofSeconds(2))
                .build();
    }

    static Agent embedded(Path dataDir, int maxBatch, long maxBody, WindowOptions windows, FakeClock clock) {
        return Agent.start(
                new AgentOptions(http(maxBatch, maxBody), new EmbeddedStoreOptions(dataDir, 1 << 16, 8), windows),
                clock);
    }

    /**
     * An agent on {@code shards} servers of {@code binary} (redis-server or valkey-server) started under {@code dir} (added to {@code servers}, for the
     * caller to stop), with few buckets so that a suite's claims share buckets and exercise levels.
     */
    static Agent redis(
            Path dir,
            List<RedisServer> servers,
            RedisServer.Binary binary,
            int shards,
            long nearCacheSize,
            int maxBatch,
            long maxBody,
            WindowOptions windows,
            FakeClock clock) {
        List<String> uris = new ArrayList<>();
        try {
            for (int i = 0; i < shards; i++) {
                RedisServer server = RedisServer.start(binary, dir.resolve("redis-" + i));
                servers.add(server);
                uris.add(server.uri());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        return redis(dir, uris, nearCacheSize, maxBatch, maxBody, windows, clock);
    }

    /** An agent on the Redis Cluster {@code cluster}, in {@code groups} groups, with few buckets as above. */
    static Agent cluster(
            Path dir,
            RedisCluster cluster,
            int groups,
            long nearCacheSize,
            int maxBatch,
            long maxBody,
            WindowOptions windows,
            FakeClock clock) {
        return redis(dir, List.of(cluster.uri()), groups, nearCacheSize, maxBatch, maxBody, windows, clock);
    }

    private static Agent redis(
            Path dir,
            List<String> uris,
            long nearCacheSize,
            int maxBatch,
            long maxBody,
            WindowOptions windows,
            FakeClock clock) {
        return redis(dir, uris, RedisOptions.DEFAULT_CLUSTER_GROUPS, nearCacheSize, maxBatch, maxBody, windows, clock);
    }

    private static Agent redis(
            Path dir,
            List<String> uris,
            int groups,
            long nearCacheSize,
            int maxBatch,
            long maxBody,
            WindowOptions windows,
            FakeClock clock) {
        RedisOptions redis = RedisOptions.builder(uris)
                .timeout(Duration.ofSeconds(5))
                .clusterGroups(groups)
                .build();
        return Agent.start(
                new AgentOptions(
                        http(maxBatch, maxBody),
                        new EmbeddedStoreOptions(dir.resolve("unused"), 1 << 16, 8),
                        windows,
                        redis,
                        new NearCacheOptions(nearCacheSize)),
                clock);
    }
}
