package dev.dedup.agent.store.redis.access;

import java.nio.charset.StandardCharsets;
import java.util.function.ObjIntConsumer;

/** What the key-name tests share: standalone keys must keep the names deployments already hold, on any shard. */
public final class StandaloneKeys {

    private StandaloneKeys() {}

    /** Runs {@code check} on the standalone keys of prefix {@code dd} for shards 0 and 2. */
    public static void onEveryShard(ObjIntConsumer<RedisKeys> check) {
        RedisKeys keys = new RedisKeys("dd");
        for (int shard : new int[] {0, 2}) {
            check.accept(keys, shard);
        }
    }

    public static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
