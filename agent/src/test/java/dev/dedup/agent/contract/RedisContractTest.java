package dev.dedup.agent.contract;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/** The contract against one Redis shard started by the test, with the near-cache in front. */
class RedisContractTest extends ClaimContractSuite {

    @TempDir
    static Path dir;

    protected final List<RedisServer> servers = new ArrayList<>();

    protected int shards() {
        return 1;
    }

    protected long nearCacheSize() {
        return NearCacheOptions.DEFAULT_MAX_ENTRIES;
    }

    /** The server program of the shards. */
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.REDIS;
    }

    @Override
    protected Agent startAgent(FakeClock clock) {
        List<String> uris = new ArrayList<>();
        try {
            for (int i = 0; i < shards(); i++) {
                RedisServer server = RedisServer.start(binary(), dir.resolve("redis-" + i));
                servers.add(server);
                uris.add(server.uri());
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        // Few buckets, so that the suite's claims share buckets and exercise levels.
        RedisOptions redis = new RedisOptions(uris, Duration.ofSeconds(5), 64, 16, 4, "dd", 1024);
        return Agent.start(
                new AgentOptions(
                        new HttpOptions(
                                "127.0.0.1", 0, MAX_BATCH, MAX_BODY, Duration.ofSeconds(30), 2, Duration.ofSeconds(2)),
                        new EmbeddedStoreOptions(dir.resolve("unused"), 1 << 16, 8),
                        windows(),
                        redis,
                        new NearCacheOptions(nearCacheSize())),
                clock);
    }

    @AfterAll
    void stopServers() {
        servers.forEach(RedisServer::close);
    }
}
