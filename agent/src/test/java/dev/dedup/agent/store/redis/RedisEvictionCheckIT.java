package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --redis-eviction-check} as the agent jar runs it, against real servers. A server that may evict ({@code
 * maxmemory-policy} other than {@code noeviction}) turns duplicates into {@code new} without an error, so {@code
 * require} (the default) refuses to start, exit 2 with one line naming the server, and {@code warn} starts and
 * logs it. Servers started with {@code --rename-command CONFIG ""} stand for the managed services that refuse
 * {@code CONFIG}: the policy is then read from {@code INFO memory}; with {@code INFO} renamed away too, nothing
 * tells the policy, which {@code require} refuses and {@code warn} logs.
 */
class RedisEvictionCheckIT {

    private static final Duration EXIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    /** A server with {@code policy}, without the commands in {@code renamedAway}. */
    private RedisServer server(String name, String policy, String... renamedAway) throws Exception {
        List<String> args = new ArrayList<>(List.of("--maxmemory-policy", policy));
        for (String command : renamedAway) {
            args.addAll(List.of("--rename-command", command, ""));
        }
        return RedisServer.start(dir.resolve(name), args.toArray(String[]::new));
    }

    private String[] args(RedisServer redis, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "--redis", redis.uri(), "--data-dir", dir.resolve("unused").toString(), "--redis-timeout", "5s"));
        args.addAll(List.of(extra));
        return args.toArray(String[]::new);
    }

    /** The jar, not waited for: for starts that are refused. */
    private AgentProcess launch(RedisServer redis, String... extra) throws Exception {
        return AgentProcess.launch(dir, args(redis, extra));
    }

    /** The jar, once ready (it fails with the agent's output if the agent exits instead), having answered a claim. */
    private AgentProcess serving(RedisServer redis, String... extra) throws Exception {
        AgentProcess agent = AgentProcess.start(dir, args(redis, extra));
        assertEquals(
                List.of("new"),
                agent.http().claim(RedisTier.NS, List.of(new Item("eviction-" + System.nanoTime(), "o"))));
        return agent;
    }

    /** Exit 2, and the one line Main prints for it (the only line of the output that says "configuration error"). */
    private static String refusal(AgentProcess agent) throws Exception {
        assertEquals(2, agent.awaitExit(EXIT), agent.output());
        List<String> lines = agent.output()
                .lines()
                .filter(l -> l.contains("configuration error"))
                .toList();
        assertEquals(1, lines.size(), agent.output());
        assertTrue(lines.get(0).startsWith("dedup-agent: configuration error: redis-eviction-check: "), lines.get(0));
        return lines.get(0);
    }

    /** Fails unless the agent exits 2 with one line of refusal that holds every one of {@code parts}. */
    private static void assertRefused(AgentProcess agent, String... parts) throws Exception {
        assertSays(refusal(agent), parts);
    }

    /** Fails unless {@code line} holds every one of {@code parts}. */
    private static void assertSays(String line, String... parts) {
        for (String part : parts) {
            assertTrue(line.contains(part), line);
        }
    }

    private static List<String> warnings(AgentProcess agent) {
        return agent.output()
                .lines()
                .filter(l -> l.contains("WARNING") && l.contains("maxmemory-policy"))
                .toList();
    }

    @Test
    void require_isTheDefault_andRefusesAShardThatMayEvict_readWithConfigGet() throws Exception {
        try (RedisServer redis = server("lru", "allkeys-lru");
                AgentProcess agent = launch(redis)) {
            assertRefused(
                    agent,
                    "redis shard redis://127.0.0.1:" + redis.port(),
                    "maxmemory-policy allkeys-lru (read with CONFIG GET)",
                    "set maxmemory-policy noeviction",
                    "--redis-eviction-check warn");
        }
    }

    @Test
    void require_readsThePolicyFromInfoMemory_whenConfigIsRenamedAway_andRefusesOneThatMayEvict() throws Exception {
        try (RedisServer redis = server("no-config-lru", "volatile-lru", "CONFIG");
                AgentProcess agent = launch(redis, "--redis-eviction-check", "require")) {
            assertRefused(
                    agent,
                    "redis://127.0.0.1:" + redis.port(),
                    "maxmemory-policy volatile-lru (read with INFO memory, CONFIG GET being refused)");
        }
    }

    @Test
    void require_startsOnNoeviction_readFromInfoMemory_whenConfigIsRenamedAway() throws Exception {
        try (RedisServer redis = server("no-config", "noeviction", "CONFIG");
                AgentProcess agent = serving(redis)) {
            assertEquals(List.of(), warnings(agent));
            assertEquals(0, agent.terminate(EXIT), agent.output());
        }
    }

    @Test
    void require_refusesWhenNeitherConfigNorInfoTellsThePolicy() throws Exception {
        try (RedisServer redis = server("blind", "noeviction", "CONFIG", "INFO");
                AgentProcess agent = launch(redis)) {
            assertRefused(
                    agent,
                    "cannot verify that redis shard redis://127.0.0.1:" + redis.port()
                            + " does not evict claims: CONFIG GET maxmemory-policy failed: ERR unknown command",
                    "and INFO memory failed: ERR unknown command",
                    "make sure its maxmemory-policy is noeviction");
        }
    }

    @Test
    void warn_startsOnAShardThatMayEvict_withConfigRenamedAway_andLogsIt() throws Exception {
        try (RedisServer redis = server("warn-lru", "allkeys-lru", "CONFIG");
                AgentProcess agent = serving(redis, "--redis-eviction-check", "warn")) {
            List<String> warnings = warnings(agent);
            assertEquals(1, warnings.size(), agent.output());
            assertSays(warnings.get(0), "redis://127.0.0.1:" + redis.port(), "has maxmemory-policy allkeys-lru");
            assertEquals(0, agent.terminate(EXIT), agent.output());
        }
    }

    @Test
    void warn_startsWhenThePolicyCannotBeRead_andLogsIt() throws Exception {
        try (RedisServer redis = server("warn-blind", "noeviction", "CONFIG", "INFO");
                AgentProcess agent = serving(redis, "--redis-eviction-check", "warn")) {
            List<String> warnings = warnings(agent);
            assertEquals(1, warnings.size(), agent.output());
            assertTrue(warnings.get(0).contains("cannot verify"), warnings.get(0));
            assertEquals(0, agent.terminate(EXIT), agent.output());
        }
    }

    @Test
    void warn_onNoeviction_startsWithoutAWarning() throws Exception {
        try (RedisServer redis = server("plain", "noeviction");
                AgentProcess agent = serving(redis, "--redis-eviction-check", "warn")) {
            assertEquals(List.of(), warnings(agent));
            assertFalse(agent.output().contains("configuration error"), agent.output());
            assertEquals(0, agent.terminate(EXIT), agent.output());
        }
    }
}
