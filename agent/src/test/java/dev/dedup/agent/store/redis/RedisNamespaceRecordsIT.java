package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.WindowMode;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A namespace's window and window mode choose the fingerprint table its claims are kept in, and its event rate
 * whether they are filed by event time: an agent configured otherwise would look elsewhere and answer copies of
 * every id already claimed {@code new}. Each shard records where the namespace's claims are; an agent that
 * disagrees is refused (named in its configuration: at start; met through {@code *}: 503 for the namespace),
 * until the operator deletes the record and so accepts the change. The near-cache is off: answers come from
 * Redis.
 */
class RedisNamespaceRecordsIT {

    private static final RedisTier.Layout LAYOUT = RedisTier.Layout.defaults(Duration.ofSeconds(5));
    private static final Duration WEEK = Duration.ofDays(7);

    @TempDir
    Path dir;

    private Agent agent(RedisServer redis, WindowOptions windows) {
        return RedisTier.agentAt(
                dir, List.of(redis.uri()), LAYOUT.withWindows(windows), 0, new FakeClock(RedisTier.EPOCH));
    }

    private static List<Item> items(int n, String owner) {
        return IntStream.range(0, n).mapToObj(i -> new Item("w-" + i, owner)).toList();
    }

    @Test
    void anotherWindowModeOrLayout_isRefused_untilTheRecordIsDeleted() throws Exception {
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"))) {
            try (Agent first =
                    agent(redis, new WindowOptions(RedisTier.WINDOW, Map.of(RedisTier.NS, RedisTier.WINDOW)))) {
                assertEquals(
                        Collections.nCopies(300, "new"),
                        new AgentHttp(first.port()).claim(RedisTier.NS, items(300, "o1")));
            }
            for (WindowOptions other : List.of(
                    new WindowOptions(RedisTier.WINDOW, Map.of(RedisTier.NS, WEEK)),
                    new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of(), Map.of(RedisTier.NS, WindowMode.SLIDING)),
                    new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of(RedisTier.NS, 1_000)))) {
                IncompatibleDeploymentException e = assertThrows(
                        IncompatibleDeploymentException.class,
                        () -> agent(redis, other).close(),
                        other.toString());
                assertTrue(
                        e.getMessage()
                                        .startsWith(
                                                "namespace " + RedisTier.NS
                                                        + " keeps its claims in the fingerprint table of a fixed 24h window on redis shard")
                                && e.getMessage().contains("delete dd:layout:" + RedisTier.NS + " from every shard"),
                        e.getMessage());
            }
            // Met through *: the namespace is refused (503), others are served.
            try (Agent wildcard = agent(redis, new WindowOptions(WEEK, Map.of()))) {
                AgentHttp http = new AgentHttp(wildcard.port());
                var refused = RedisTier.postClaims(http, items(300, "o2"));
                assertEquals(503, refused.statusCode(), AgentHttp.text(refused));
                assertTrue(
                        AgentHttp.text(refused)
                                .contains("would keep them in the fingerprint table of a fixed 7d window"),
                        AgentHttp.text(refused));
                assertEquals(Collections.nCopies(10, "new"), http.claim("other", items(10, "o1")));
            }
            try (Agent same = agent(redis, new WindowOptions(RedisTier.WINDOW, Map.of()))) {
                assertEquals(
                        Collections.nCopies(300, "duplicate"),
                        new AgentHttp(same.port()).claim(RedisTier.NS, items(300, "o2")),
                        "the deployment's settings find every claim");
            }
            redis.command("DEL", "dd:layout:" + RedisTier.NS);
            try (Agent changed = agent(redis, new WindowOptions(RedisTier.WINDOW, Map.of(RedisTier.NS, WEEK)))) {
                assertEquals(
                        Collections.nCopies(300, "new"),
                        new AgentHttp(changed.port()).claim(RedisTier.NS, items(300, "o2")),
                        "the change accepted: the claims of the old window are not looked for");
            }
        }
    }
}
