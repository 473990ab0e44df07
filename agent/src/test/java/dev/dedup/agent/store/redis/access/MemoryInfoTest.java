package dev.dedup.agent.store.redis.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** What the agent reads of {@code INFO memory}: the shard's memory and, where CONFIG is refused, its policy. */
class MemoryInfoTest {

    /** The lines around the three the agent reads, as Redis 7.0 writes them (CRLF). */
    private static final String REDIS_7 = String.join(
            "\r\n",
            "# Memory",
            "used_memory:1082208",
            "used_memory_human:1.03M",
            "used_memory_rss:8347648",
            "used_memory_peak:1122848",
            "maxmemory:4194304",
            "maxmemory_human:4.00M",
            "maxmemory_policy:allkeys-lru",
            "allocator_frag_ratio:1.21",
            "");

    @Test
    void readsUsedMaxAndPolicy_notTheLinesThatStartAlike() {
        MemoryInfo info = MemoryInfo.parse(REDIS_7);
        assertEquals(1082208, info.used());
        assertEquals(4194304, info.max());
        assertEquals("allkeys-lru", info.policy());
    }

    @Test
    void aReplyWithoutThePolicy_leavesItUnknown() {
        MemoryInfo info = MemoryInfo.parse("# Memory\r\nused_memory:10\r\n");
        assertEquals(10, info.used());
        assertEquals(0, info.max());
        assertNull(info.policy());
    }
}
