package dev.dedup.agent.store.redis.access.connections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Of the sentinels' answers, the newest configuration is believed, not the first to arrive. */
class SentinelMasterTest {

    private static final SentinelMaster.View OLD = new SentinelMaster.View(new InetSocketAddress("10.0.0.1", 6379), 4);
    private static final SentinelMaster.View NEW = new SentinelMaster.View(new InetSocketAddress("10.0.0.2", 6379), 5);

    @Test
    void aSentinelCutOffFromTheFailover_isOutvotedByTheGreaterEpoch_whateverTheOrder() {
        assertEquals(NEW, SentinelMaster.View.newest(List.of(OLD, NEW)).orElseThrow());
        assertEquals(NEW, SentinelMaster.View.newest(List.of(NEW, OLD, OLD)).orElseThrow());
    }

    @Test
    void onATie_theFirstSentinelOfTheUriWins_andNoAnswerIsNoPrimary() {
        SentinelMaster.View same = new SentinelMaster.View(new InetSocketAddress("10.0.0.3", 6379), 4);
        assertEquals(OLD, SentinelMaster.View.newest(List.of(OLD, same)).orElseThrow());
        assertTrue(SentinelMaster.View.newest(List.of()).isEmpty());
    }

    @Test
    void sentinelMasterReply_givesAddressAndConfigEpoch() {
        SentinelMaster.View v = SentinelMaster.View.of(
                Map.of("name", "m0", "ip", "10.0.0.2", "port", "6380", "flags", "master", "config-epoch", "7"));
        assertEquals(new InetSocketAddress("10.0.0.2", 6380), v.primary());
        assertEquals(7, v.epoch());
    }
}
