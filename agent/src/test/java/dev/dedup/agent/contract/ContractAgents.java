package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentUnderTest;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisAcl;
import dev.dedup.agent.testing.RedisCluster;
import dev.dedup.agent.testing.RedisServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The stores the contract suites run against: the embedded store, Redis shards or a Redis Cluster. Each starts
 * what it needs and an agent on it with the suites' limits, and stops what it started when closed.
 */
final class ContractAgents {

    private ContractAgents() {}

    /** A store a suite starts once, under the suite's folder, and closes after the agent. */
    interface Store extends AutoCloseable {

        Agent start(Path dir, WindowOptions windows, FakeClock clock) throws Exception;

        @Override
        default void close() {}
    }

    /** Redis under a store: the program its servers run, and the servers. */
    interface RedisStore extends Store {

        RedisServer.Binary binary();

        /** The servers, once started. */
        List<RedisServer> servers();

        /** Fails if a server refused the agent a command its ACL lacks; nothing to check where there is no ACL. */
        default void assertNothingRefused() throws IOException {}
    }

    static Store embedded() {
        return (dir, windows, clock) -> Agent.start(
                AgentUnderTest.options(http(), dir, windows, RedisOptions.none(), NearCacheOptions.DEFAULT_MAX_ENTRIES),
                clock);
    }

    /**
     * {@code count} servers of {@code binary} (redis-server or valkey-server), each one shard; with {@code acl}, each
     * lets the agent in only as the user the shipped tier gives it ({@link RedisAcl#AGENT}), the default user off,
     * and the test's own commands log in as an admin.
     */
    static final class Shards implements RedisStore {

        static final String PASSWORD = "contract-Pass-8e21";

        private final RedisServer.Binary binary;
        private final int count;
        private final long nearCacheSize;
        private final boolean acl;
        private final List<RedisServer> servers = new ArrayList<>();

        Shards(RedisServer.Binary binary, int count, long nearCacheSize) {
            this(binary, count, nearCacheSize, false);
        }

        Shards(RedisServer.Binary binary, int count, long nearCacheSize, boolean acl) {
            this.binary = binary;
            this.count = count;
            this.nearCacheSize = nearCacheSize;
            this.acl = acl;
        }

        @Override
        public RedisServer.Binary binary() {
            return binary;
        }

        @Override
        public List<RedisServer> servers() {
            return servers;
        }

        @Override
        public Agent start(Path dir, WindowOptions windows, FakeClock clock) throws Exception {
            List<String> uris = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                if (!acl) {
                    RedisServer server = RedisServer.start(binary, dir.resolve("redis-" + i));
                    servers.add(server);
                    uris.add(server.uri());
                    continue;
                }
                List<String> users = new ArrayList<>(RedisAcl.agentOnly(PASSWORD, binary));
                users.addAll(List.of("--user", "admin", "on", ">" + PASSWORD, "~*", "&*", "+@all"));
                RedisServer server = RedisServer.start(binary, dir.resolve("redis-" + i), users.toArray(String[]::new))
                        .login("admin", PASSWORD);
                servers.add(server);
                uris.add("redis://dedup:" + PASSWORD + "@127.0.0.1:" + server.port());
            }
            return redis(dir, uris, nearCacheSize, windows, clock);
        }

        /** With {@code acl}, fails unless no server refused anything since it started: its {@code ACL LOG} is empty. */
        @Override
        public void assertNothingRefused() throws IOException {
            if (!acl) {
                return;
            }
            for (RedisServer server : servers) {
                String log = server.command("ACL", "LOG");
                if (!log.startsWith("*0")) {
                    throw new AssertionError("redis-server " + server.port() + " refused the agent: " + log);
                }
            }
        }

        @Override
        public void close() {
            servers.forEach(RedisServer::close);
        }
    }

    /** A Redis Cluster of three masters, each with a replica. */
    static final class Cluster implements RedisStore {

        private RedisCluster cluster;

        @Override
        public RedisServer.Binary binary() {
            return RedisServer.Binary.REDIS;
        }

        @Override
        public List<RedisServer> servers() {
            return cluster.nodes();
        }

        @Override
        public Agent start(Path dir, WindowOptions windows, FakeClock clock) throws Exception {
            cluster = RedisCluster.start(dir.resolve("cluster"), 3);
            return redis(dir, List.of(cluster.uri()), NearCacheOptions.DEFAULT_MAX_ENTRIES, windows, clock);
        }

        @Override
        public void close() {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    private static HttpOptions http() {
        return AgentUnderTest.http()
                .maxBatch(AgentSuite.MAX_BATCH)
                .maxBody(AgentSuite.MAX_BODY)
                .eventLoops(2)
                .shutdownGrace(Duration.ofSeconds(2))
                .build();
    }

    /** An agent on Redis at {@code uris}, its claims spread over the default number of groups on a cluster. */
    private static Agent redis(
            Path dir, List<String> uris, long nearCacheSize, WindowOptions windows, FakeClock clock) {
        RedisOptions redis = RedisOptions.builder(uris)
                .timeout(Duration.ofSeconds(5))
                .clusterGroups(RedisOptions.DEFAULT_CLUSTER_GROUPS)
                .build();
        return Agent.start(AgentUnderTest.options(http(), dir.resolve("unused"), windows, redis, nearCacheSize), clock);
    }
}
