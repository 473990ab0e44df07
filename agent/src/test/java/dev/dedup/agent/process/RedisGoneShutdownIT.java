package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.agent.testing.Shards;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM must stop the agent promptly even when its Redis shards are gone: closing a Lettuce connection
 * that is reconnecting once waited forever (found when shards and agent were stopped together), leaving
 * the process to a SIGKILL.
 */
class RedisGoneShutdownIT {

    @TempDir
    Path dir;

    @Test
    void sigtermWhileEveryShardIsDown_exitsWithinSeconds(@Shards(3) RedisShards shards) throws Exception {
        String uris = String.join(",", shards.uris());
        try (AgentProcess agent = AgentProcess.start(
                dir.resolve("agent"), "--redis", uris, "--namespace-event-rate", "t=1000", "--shutdown-grace", "2s")) {
            List<Item> items = List.of(new Item("a", "o", 1_800_000_000L), new Item("b", "o", 1_800_000_000L));
            assertEquals(List.of("new", "new"), agent.http().claim("t", items));
            for (RedisServer shard : shards) {
                shard.kill();
            }
            long start = System.nanoTime();
            assertEquals(0, agent.terminate(Duration.ofSeconds(20)), agent.output());
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(millis < 12_000, "took " + millis + " ms to stop");
        }
    }
}
