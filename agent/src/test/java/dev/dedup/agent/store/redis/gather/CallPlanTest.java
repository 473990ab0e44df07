package dev.dedup.agent.store.redis.gather;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.testing.FakeRedisPort;
import dev.dedup.codec.Batch;
import dev.dedup.routing.JumpHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class CallPlanTest {

    private static Batch batch(int items) {
        Batch.Builder b = Batch.builder(items);
        for (int i = 0; i < items; i++) {
            // Every id twice in a row: repeats must stay in order, in the same call.
            byte[] id = ("id-" + (i / 2)).getBytes(StandardCharsets.UTF_8);
            byte[] owner = ("o" + i).getBytes(StandardCharsets.UTF_8);
            b.add(id, 0, id.length, owner, 0, owner.length);
        }
        return b.build("ns");
    }

    /** A layout of 64 buckets a shard: item {@code i}'s shard and bucket, as a layout would plan them. */
    private record Place(int shard, long bucket) {}

    private static Place[] places(Batch batch, int shards) {
        Place[] out = new Place[batch.size()];
        for (int i = 0; i < out.length; i++) {
            long route = batch.route(i);
            out[i] = new Place(JumpHash.shard(route >>> 32, shards), route & 63);
        }
        return out;
    }

    /** Bytes of an item in these plans: u16 key index, u16 batch index, 7-byte field. */
    private static final int ITEM = 11;

    /**
     * The plan of items {@code 0..places.length-1}, as a layout fills it: item {@code i} in its place, an item
     * its key index (u16), its batch index (u16) and its field ({@code i}), a bucket's key {@code b<bucket>} and
     * key argument its shard and its number's low byte.
     */
    private static CallPlan plan(int shards, int maxItems, Place... places) {
        return plan(shards, maxItems, null, places);
    }

    /** The same, item {@code i}'s field the top 7 bytes of {@code batch}'s key {@code i}. */
    private static CallPlan plan(int shards, int maxItems, Batch batch, Place... places) {
        CallPlan plan = new CallPlan(shards, places.length, ITEM, 2, maxItems);
        byte[] item = new byte[ITEM];
        for (int i = 0; i < places.length; i++) {
            Place p = places[i];
            int k = plan.keyIndex(p.shard(), p.bucket());
            if (k == 0) {
                byte[] keyArg = {(byte) p.shard(), (byte) p.bucket()};
                k = plan.name(p.shard(), p.bucket(), keyOf(p.bucket()), keyArg);
            }
            long field = batch == null ? i : batch.key(i) >>> 8;
            ByteBuffer.wrap(item)
                    .putShort((short) k)
                    .putShort((short) i)
                    .put(ByteBuffer.allocate(8).putLong(field).array(), 1, 7);
            plan.add(p.shard(), i, item);
        }
        return plan;
    }

    private static Place at(int shard, int bucket) {
        return new Place(shard, bucket);
    }

    private static byte[] keyOf(long bucket) {
        return ("b" + bucket).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void everyItemGoesToItsBucketsShard_once_inBatchOrder_withItsCallsDistinctKeys() {
        Batch batch = batch(5000);
        Place[] places = places(batch, 3);
        int[] seen = new int[batch.size()];
        for (CallPlan.Call call : plan(3, 700, places).calls()) {
            assertTrue(call.indexes().length <= 700, "at most maxItems a call");
            Set<String> keys = new HashSet<>();
            for (byte[] k : call.keys()) {
                assertTrue(keys.add(Arrays.toString(k)), "a key appears once in a call");
            }
            ByteBuffer items = ByteBuffer.wrap(call.items());
            int previous = -1;
            for (int j = 0; j < call.indexes().length; j++) {
                int i = call.indexes()[j];
                assertTrue(i > previous, "batch order within a call");
                previous = i;
                seen[i]++;
                long bucket = places[i].bucket();
                assertEquals(call.shard(), places[i].shard());
                int keyIndex = items.getShort(j * ITEM) & 0xffff;
                assertEquals(i, items.getShort(j * ITEM + 2) & 0xffff, "item " + j + " is batch item " + i);
                assertArrayEquals(keyOf(bucket), call.keys()[keyIndex - 1], "item " + i + "'s key");
                assertEquals(bucket, call.buckets()[keyIndex - 1], "item " + i + "'s bucket");
                assertEquals((byte) bucket, call.keyArgs()[(keyIndex - 1) * 2 + 1], "item " + i + "'s key argument");
            }
        }
        int[] once = new int[batch.size()];
        Arrays.fill(once, 1);
        assertArrayEquals(once, seen, "every item in exactly one call");
    }

    /** Arguments of the form {@link #FORM}: the items at 1, the key arguments at 2, distinct at 3. */
    private static final CallForm FORM = new CallForm(ITEM, 4, 1, 2, 3);

    private static ScriptCall script(CallPlan.Call call, String other) {
        return new ScriptCall(
                call,
                RedisPort.Op.CLAIM,
                new byte[0][],
                FORM.fill(new byte[][] {other.getBytes(), null, null, null}, call));
    }

    @Test
    void mergedCalls_declareEachBucketOnce_withItsKeyArgument_andRenumberItemsByBucket() {
        Batch first = batch(300);
        Batch second = batch(500); // the same ids and more: shares buckets with the first
        Place[] a = places(first, 1);
        Place[] b = places(second, 1);
        ScriptCall merged = CallGathering.merge(
                List.of(
                        script(plan(1, 4096, first, a).calls().get(0), "x"),
                        script(plan(1, 4096, second, b).calls().get(0), "x")),
                FORM);
        CallPlan.Call call = merged.call();
        assertEquals(call.buckets().length, call.keys().length, "one key a bucket");
        assertEquals(call.buckets().length * 2, call.keyArgs().length, "one key argument a bucket");
        assertEquals(first.size() + second.size(), call.indexes().length);
        Set<Long> distinct = new HashSet<>();
        for (long bucket : call.buckets()) {
            assertTrue(distinct.add(bucket), "a bucket appears once in a merged call");
        }
        for (int j = 0; j < call.buckets().length; j++) {
            assertArrayEquals(keyOf(call.buckets()[j]), call.keys()[j], "bucket " + j + "'s key");
            assertEquals((byte) call.buckets()[j], call.keyArgs()[j * 2 + 1], "bucket " + j + "'s key argument");
        }
        ByteBuffer items = ByteBuffer.wrap(call.items());
        for (int j = 0; j < call.indexes().length; j++) {
            Place[] places = j < first.size() ? a : b;
            int i = call.indexes()[j];
            int bucketIndex = items.getShort(j * ITEM) & 0xffff;
            assertEquals(places[i].bucket(), call.buckets()[bucketIndex - 1], "merged item " + j + " names its bucket");
        }
        assertArrayEquals("x".getBytes(), merged.args()[0], "the other arguments, the first call's");
        assertSame(call.items(), merged.args()[1], "the merged items in the arguments");
        assertSame(call.keyArgs(), merged.args()[2], "the merged key arguments in the arguments");
        assertArrayEquals(new byte[] {'0'}, merged.args()[3], "the batches share ids: not distinct");
    }

    private static List<Integer> keyIndexes(CallPlan.Call call) {
        List<Integer> out = new ArrayList<>();
        ByteBuffer items = ByteBuffer.wrap(call.items());
        for (int at = 0; at < call.items().length; at += ITEM) {
            out.add(items.getShort(at) & 0xffff);
        }
        return out;
    }

    @Test
    void anEmptyBatch_makesNoCall_andIsAnsweredAtOnce() {
        CallPlan calls = plan(3, 10);
        assertEquals(List.of(), calls.calls());
        assertArrayEquals(
                new byte[0],
                calls.run(null, c -> {
                            throw new AssertionError("no call");
                        })
                        .toCompletableFuture()
                        .join());
    }

    @Test
    void aShardsItems_fillCallsOfMaxItems_inBatchOrder_andAShardWithoutItemsHasNoCall() {
        // Shard 2 of 3 gets 7 items with at most 3 a call; shard 0 gets one; shard 1 none.
        Place[] places = new Place[8];
        for (int i = 0; i < 7; i++) {
            places[i] = at(2, i % 2);
        }
        places[7] = at(0, 9);
        List<CallPlan.Call> calls = plan(3, 3, places).calls();
        List<String> shape = calls.stream()
                .map(c -> c.shard() + ":" + Arrays.toString(c.indexes()))
                .toList();
        assertEquals(List.of("0:[7]", "2:[0, 1, 2]", "2:[3, 4, 5]", "2:[6]"), shape);
        CallPlan.Call second = calls.get(2);
        assertEquals(List.of(1, 2, 1), keyIndexes(second), "items of one bucket share its key index");
        assertArrayEquals(new long[] {1, 0}, second.buckets(), "buckets in order of first use");
        assertArrayEquals(keyOf(1), second.keys()[0]);
        assertArrayEquals(new byte[] {2, 1, 2, 0}, second.keyArgs(), "key arguments in the keys' order");
        assertEquals(1, plan(1, 3, at(0, 1), at(0, 2), at(0, 3)).calls().size(), "exactly full");
    }

    @Test
    void answersReturnToTheirItems_andACallAnsweringAnotherCount_failsTheBatchNamingItsShard() {
        Place[] places = {at(1, 0), at(0, 0), at(1, 0), at(0, 5)};
        byte[] answers = plan(2, 10, places)
                .run(null, call -> {
                    byte[] got = new byte[call.indexes().length];
                    for (int j = 0; j < got.length; j++) {
                        got[j] = (byte) (10 * call.shard() + call.indexes()[j]);
                    }
                    return CompletableFuture.completedFuture(got);
                })
                .toCompletableFuture()
                .join();
        assertArrayEquals(new byte[] {10, 1, 12, 3}, answers);

        RedisPort named = new FakeRedisPort(2);
        CompletionException e = assertThrows(
                CompletionException.class,
                () -> plan(2, 10, places)
                        .run(named, call -> CompletableFuture.completedFuture(new byte[call.shard() == 1 ? 1 : 2]))
                        .toCompletableFuture()
                        .join());
        assertTrue(e.getCause() instanceof StoreUnavailableException, e.toString());
        assertEquals(
                "redis shard shard-1 answered 1 verdicts for 2 items",
                e.getCause().getMessage());
    }

    /** Items of {@code itemBytes = 20}: u16 key index, u16 other, then the 7-byte field at 4. */
    private static byte[] items(int[][] keyIndexAndField) {
        ByteBuffer b = ByteBuffer.allocate(keyIndexAndField.length * 20);
        for (int[] item : keyIndexAndField) {
            b.putShort((short) item[0]).putShort((short) 0x7777);
            long field = item[1];
            for (int i = 0; i < 7; i++) {
                b.put((byte) (field >>> (48 - 8 * i)));
            }
            b.position(b.position() + 9);
        }
        return b.array();
    }

    private static final CallForm FORM20 = new CallForm(20, 4, 1, 2, 3);

    @Test
    void itemsAreDistinct_unlessABucketAndFieldComeTwice() {
        assertTrue(FORM20.distinct(new byte[0]), "no item");
        assertTrue(FORM20.distinct(items(new int[][] {{1, 5}})), "one item");
        assertTrue(FORM20.distinct(items(new int[][] {{1, 5}, {2, 5}, {1, 6}})), "a field in two buckets");
        assertFalse(FORM20.distinct(items(new int[][] {{1, 5}, {2, 6}, {1, 5}})), "a repeat");
        assertFalse(FORM20.distinct(items(new int[][] {{256, 5}, {2, 7}, {256, 5}})), "a repeat past key 255");
        assertTrue(FORM20.distinct(items(new int[][] {{0, 0}, {1, 0}})), "a zero item once");
        assertFalse(FORM20.distinct(items(new int[][] {{0, 0}, {1, 0}, {0, 0}})), "a zero item twice");
        int[][] many = new int[5000][];
        for (int i = 0; i < many.length; i++) {
            many[i] = new int[] {1 + i % 300, i};
        }
        assertTrue(FORM20.distinct(items(many)), "5,000 distinct");
        many[4999] = many[17].clone();
        assertFalse(FORM20.distinct(items(many)), "5,000 with one repeat at the end");
    }

    @Test
    void aScriptCallsKeys_areItsBucketsThenTheMoreKeys() {
        CallPlan.Call call = plan(1, 10, at(0, 1), at(0, 2)).calls().get(0);
        ScriptCall script = new ScriptCall(call, RedisPort.Op.CLAIM, new byte[][] {{3}}, new byte[0][]);
        assertEquals(3, script.keys().length);
        assertArrayEquals(keyOf(2), script.keys()[1]);
        assertArrayEquals(new byte[] {3}, script.keys()[2]);
        CallPlan.Call more = call.withBucket(7, keyOf(7), new byte[] {0, 7});
        assertArrayEquals(new long[] {1, 2, 7}, more.buckets());
        assertArrayEquals(keyOf(7), more.keys()[2]);
        assertArrayEquals(new byte[] {0, 1, 0, 2, 0, 7}, more.keyArgs());
        assertSame(call.items(), more.items(), "a bucket no item names");
    }

    @Test
    void aKeyArgumentOfAnotherLength_isRefused() {
        CallPlan plan = new CallPlan(1, 1, 4, 2, 10);
        assertEquals(0, plan.keyIndex(0, 5));
        assertThrows(IllegalArgumentException.class, () -> plan.name(0, 5, keyOf(5), new byte[3]));
    }
}
