package dev.dedup.agent.store.redis.access.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.EvictionCheck;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.store.redis.access.EvictionReading;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the start does with what the servers said of their eviction policy (the reading itself: RedisEvictionCheckIT). */
class EvictionPolicyTest {

    private static final EvictionReading SAFE =
            new EvictionReading("redis shard redis://a:6379", "noeviction", "CONFIG GET");
    private static final EvictionReading EVICTS =
            new EvictionReading("redis shard redis://b:6379", "volatile-lru", "INFO memory, CONFIG GET being refused");
    private static final EvictionReading UNKNOWN = new EvictionReading(
            "redis shard redis://c:6379",
            null,
            "CONFIG GET maxmemory-policy failed: NOPERM, and INFO memory failed: NOPERM");

    @Test
    void onlyNoevictionIsSafe() {
        assertTrue(SAFE.safe());
        assertFalse(EVICTS.safe());
        assertFalse(UNKNOWN.safe());
    }

    @Test
    void require_passesWhenEveryServerSaysNoeviction() {
        EvictionPolicy.judge(List.of(SAFE, SAFE), EvictionCheck.REQUIRE);
    }

    @Test
    void require_refusesTheFirstServerThatMayEvict_onOneLineNamingItAndTheWayOut() {
        String message = assertThrows(
                        IncompatibleDeploymentException.class,
                        () -> EvictionPolicy.judge(List.of(SAFE, EVICTS, UNKNOWN), EvictionCheck.REQUIRE))
                .getMessage();
        assertEquals(
                "redis-eviction-check: redis shard redis://b:6379 has maxmemory-policy volatile-lru (read with INFO"
                        + " memory, CONFIG GET being refused): Redis may evict claims, which turns duplicates into new;"
                        + " set maxmemory-policy noeviction, or start with --redis-eviction-check warn to accept the"
                        + " risk (docs/managed-redis.md)",
                message);
    }

    @Test
    void require_refusesAServerThatDoesNotSay() {
        String message = assertThrows(
                        IncompatibleDeploymentException.class,
                        () -> EvictionPolicy.judge(List.of(UNKNOWN), EvictionCheck.REQUIRE))
                .getMessage();
        assertTrue(
                message.startsWith("redis-eviction-check: cannot verify that redis shard redis://c:6379 does not"
                        + " evict claims: CONFIG GET maxmemory-policy failed: NOPERM, and INFO memory failed: NOPERM;"
                        + " make sure its maxmemory-policy is noeviction"),
                message);
        assertFalse(message.contains("\n"), message);
    }

    @Test
    void warn_startsWhateverTheServersSay() {
        EvictionPolicy.judge(List.of(SAFE, EVICTS, UNKNOWN), EvictionCheck.WARN);
    }
}
