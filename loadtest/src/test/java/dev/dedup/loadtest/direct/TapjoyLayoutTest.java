package dev.dedup.loadtest.direct;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.loadtest.workload.EventTime;
import dev.dedup.loadtest.workload.Message;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TapjoyLayoutTest {

    @Test
    void bucketKeys_areTheArticles14Bytes_secondAndThreeDigitSlice() {
        TapjoyBuckets buckets = new TapjoyBuckets(EventTime.EVENTS_PER_SECOND, 3);
        assertEquals(334, buckets.slices(), "2M a minute in buckets of 100");
        long bucket = 5L * buckets.slices() + 7;
        assertEquals("1700000005:007", TapjoyBuckets.describe(buckets.key(bucket)));
        assertEquals(14, buckets.key(bucket).length);
        assertTrue(buckets.shard(buckets.key(bucket)) < 3);
    }

    @Test
    void aSecondsIdsSpreadOverItsSlices_aboutAHundredEach() {
        TapjoyBuckets buckets = new TapjoyBuckets(EventTime.EVENTS_PER_SECOND, 3);
        Map<Long, Integer> sizes = new HashMap<>();
        java.util.SplittableRandom random = new java.util.SplittableRandom(1);
        for (int i = 0; i < EventTime.EVENTS_PER_SECOND; i++) {
            sizes.merge(buckets.bucket(0, random.nextLong(), random.nextLong()), 1, Integer::sum);
        }
        assertEquals(334, sizes.size());
        int max = sizes.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
        assertTrue(max < 160, "largest bucket " + max);
    }

    @Test
    void encoding_packsTheUuidTheOwnerAndTheSecond() {
        byte[] body = new TapjoyEncoding()
                .encode("ignored", List.of(new Message("0123abcd-0000-4000-8000-00000000ffff", "p3:81418110694", 42)));
        ByteBuffer in = ByteBuffer.wrap(body);
        assertEquals(TapjoyEncoding.MESSAGE_BYTES, body.length);
        assertEquals(0x0123abcd00004000L, in.getLong());
        assertEquals(0x800000000000ffffL, in.getLong());
        assertEquals(3, in.getShort());
        assertEquals(81418110694L, ((long) (in.getShort() & 0xffff) << 32) | (in.getInt() & 0xffffffffL));
        assertEquals(42, in.getInt());
        assertThrows(
                IllegalArgumentException.class,
                () -> new TapjoyEncoding().encode("x", List.of(new Message("not-a-uuid", "p1:1", 0))));
    }
}
