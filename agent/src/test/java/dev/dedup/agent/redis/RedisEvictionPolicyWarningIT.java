package dev.dedup.agent.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Redis that may evict keys silently turns duplicates into {@code new}: the agent still starts against
 * such a shard, but warns, naming the setting to change. A shard with {@code noeviction} gets no warning.
 */
class RedisEvictionPolicyWarningIT {

    private static final String LOGGER = "dev.dedup.agent.store.redis.LettuceShards";

    @TempDir
    Path dir;

    /** Held here: java.util.logging keeps loggers weakly, and a collected one would lose the handler. */
    private Logger logger;

    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void capture() {
        logger = Logger.getLogger(LOGGER);
        capture.setLevel(Level.ALL);
        logger.addHandler(capture);
    }

    @AfterEach
    void release() {
        logger.removeHandler(capture);
    }

    private List<String> warnings() {
        return records.stream()
                .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                .map(LogRecord::getMessage)
                .toList();
    }

    @Test
    void shardWithAnEvictionPolicy_startsButWarnsNamingMaxmemoryPolicy() throws Exception {
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"), "--maxmemory-policy", "allkeys-lru");
                Agent agent = RedisTier.agent(
                        dir,
                        List.of(redis),
                        RedisTier.Layout.defaults(Duration.ofSeconds(5)),
                        0,
                        new FakeClock(RedisTier.EPOCH))) {
            List<String> warnings = warnings();
            assertTrue(
                    warnings.stream()
                            .anyMatch(w -> w.contains("maxmemory-policy")
                                    && w.contains("allkeys-lru")
                                    && w.contains(String.valueOf(redis.port()))),
                    "warnings: " + warnings);
            // It serves all the same.
            AgentHttp http = new AgentHttp(agent.port());
            assertEquals(List.of("new"), http.claim(RedisTier.NS, List.of(new Item("evict-policy", "o"))));
        }
    }

    @Test
    void shardWithNoeviction_startsWithoutWarning() throws Exception {
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"));
                Agent agent = RedisTier.agent(
                        dir,
                        List.of(redis),
                        RedisTier.Layout.defaults(Duration.ofSeconds(5)),
                        0,
                        new FakeClock(RedisTier.EPOCH))) {
            assertEquals(
                    List.of(),
                    warnings().stream()
                            .filter(w -> w.contains("maxmemory-policy"))
                            .toList());
        }
    }
}
