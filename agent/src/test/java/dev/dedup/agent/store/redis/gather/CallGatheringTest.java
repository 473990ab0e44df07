package dev.dedup.agent.store.redis.gather;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.metrics.MetricNames;
import dev.dedup.agent.store.redis.access.RedisPort.Op;
import dev.dedup.agent.store.redis.access.RedisPort.Script;
import dev.dedup.agent.testing.FakeRedisPort;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * How concurrent batches' calls to one shard go out, on a port that answers when the test says and a clock that
 * moves when the test moves it: at once while the shard is not busy, merged once it answers, apart when their
 * arguments differ, and each batch answered with its own items' answers.
 */
class CallGatheringTest {

    /** An item: its u16 key index, its u16 tag, then a 7-byte field (the tag again). */
    private static final int ITEM_BYTES = 11;

    /** The script's arguments: one that decides what may merge, the items, the key arguments, distinct. */
    private static final CallForm FORM = new CallForm(ITEM_BYTES, 4, 1, 2, 3);

    private final FakeRedisPort port = new FakeRedisPort(2);
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final CallGathering gathering = new CallGathering(port, Script.CLAIMS, FORM, registry, nanos::get);

    /**
     * A call on {@code shard} of items tagged {@code tag, tag + 1, ...}, item {@code i} in bucket {@code
     * buckets[i]}, whose key argument is the bucket's low byte.
     */
    private static CallPlan.Call call(int shard, int tag, long... buckets) {
        List<Long> distinct = new ArrayList<>();
        ByteBuffer items = ByteBuffer.allocate(buckets.length * ITEM_BYTES);
        int[] indexes = new int[buckets.length];
        for (int i = 0; i < buckets.length; i++) {
            if (!distinct.contains(buckets[i])) {
                distinct.add(buckets[i]);
            }
            items.putShort((short) (distinct.indexOf(buckets[i]) + 1)).putShort((short) (tag + i));
            items.put(new byte[5]).putShort((short) (tag + i));
            indexes[i] = i;
        }
        byte[] keyArgs = new byte[distinct.size()];
        for (int k = 0; k < keyArgs.length; k++) {
            keyArgs[k] = (byte) (long) distinct.get(k);
        }
        return new CallPlan.Call(
                shard,
                distinct.stream().mapToLong(Long::longValue).toArray(),
                distinct.stream().map(b -> key(b)).toArray(byte[][]::new),
                keyArgs,
                items.array(),
                indexes);
    }

    private static ScriptCall script(CallPlan.Call call, Op op, String other) {
        return new ScriptCall(
                call,
                op,
                new byte[0][],
                FORM.fill(new byte[][] {other.getBytes(StandardCharsets.US_ASCII), null, null, null}, call));
    }

    private static byte[] key(long bucket) {
        return ("b" + bucket).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A sent call's items as (bucket, tag) pairs, the bucket read from the call's keys; each key's argument checked
     * to be its bucket's.
     */
    private static List<String> items(FakeRedisPort.Sent sent) {
        List<String> out = new ArrayList<>();
        ByteBuffer items = ByteBuffer.wrap(sent.args()[1]);
        for (int k = 0; k < sent.keys().length; k++) {
            assertEquals(
                    "b" + sent.args()[2][k], new String(sent.keys()[k], StandardCharsets.US_ASCII), "key argument");
        }
        while (items.hasRemaining()) {
            int keyIndex = items.getShort() & 0xffff;
            int tag = items.getShort() & 0xffff;
            items.position(items.position() + 7);
            out.add(new String(sent.keys()[keyIndex - 1], StandardCharsets.US_ASCII) + "/" + tag);
        }
        return out;
    }

    private CompletableFuture<CallGathering.Reply> submit(CallPlan.Call call, String other) {
        return gathering.submit(script(call, Op.CLAIM, other)).toCompletableFuture();
    }

    private static List<Object> reply(String answers, long more) {
        return List.of(answers.getBytes(StandardCharsets.ISO_8859_1), more);
    }

    @Test
    void callsGoOutAtOnce_whileFewerThanTwoAreInFlightOnTheirShard() {
        submit(call(0, 0, 1), "same");
        submit(call(0, 10, 2), "same");
        assertEquals(2, port.count(), "two in flight on shard 0");
        submit(call(0, 20, 3), "same");
        assertEquals(2, port.count(), "the third waits for shard 0");
        submit(call(1, 30, 4), "same");
        assertEquals(3, port.count(), "shard 1 is idle: its call goes at once");
        assertEquals(1, port.sent(2).shard());
    }

    @Test
    void callsMadeWhileTheShardIsBusy_goOutAsOneWhenItAnswers_eachBatchAnsweredItsOwnItems() {
        CompletableFuture<CallGathering.Reply> a = submit(call(0, 0, 1, 2), "same");
        submit(call(0, 10, 3), "same");
        CompletableFuture<CallGathering.Reply> c = submit(call(0, 20, 5, 6), "same");
        CompletableFuture<CallGathering.Reply> d = submit(call(0, 30, 6, 7, 5), "same");
        assertEquals(2, port.count());

        port.sent(0).reply().complete(reply("\0\1", 0));
        assertArrayEquals(new byte[] {0, 1}, a.join().answers());
        assertEquals(3, port.count(), "what waited went out when the shard answered, as one call");
        FakeRedisPort.Sent merged = port.sent(2);
        assertEquals(List.of("b5/20", "b6/21", "b6/30", "b7/31", "b5/32"), items(merged), "in the order they came");
        assertEquals(3, merged.keys().length, "each bucket declared once");
        assertFalse(c.isDone());

        merged.reply().complete(reply("\0\2\1\0\2", 7));
        assertArrayEquals(new byte[] {0, 2}, c.join().answers());
        assertArrayEquals(new byte[] {1, 0, 2}, d.join().answers());
        assertTrue(c.join().first() && !d.join().first(), "only the first batch counts the script's other values");
        assertEquals(7, d.join().number(1), "every batch sees the whole reply");
        assertEquals(
                2.0,
                registry.get(MetricNames.REDIS_GATHERED)
                        .tag(MetricNames.TAG_SHARD, "0")
                        .counter()
                        .count(),
                "two calls went out merged");
    }

    @Test
    void aCallThatWaitedPastTheHold_goesOutWithTheNextCall_evenWhileTheShardIsBusy() {
        submit(call(0, 0, 1), "same");
        submit(call(0, 10, 2), "same");
        submit(call(0, 20, 3), "same");
        nanos.addAndGet(CallGathering.MAX_HOLD_MICROS * 1000);
        submit(call(0, 30, 4), "same");
        assertEquals(2, port.count(), "held exactly the hold: it waits on");
        nanos.addAndGet(1);
        submit(call(0, 40, 5), "same");
        assertEquals(3, port.count(), "held past it: everything waiting goes out");
        assertEquals(List.of("b3/20", "b4/30", "b5/40"), items(port.sent(2)));
    }

    @Test
    void callsWithOtherArguments_goOutApart_andNoneJoinsOneBeforeADifferentOne() {
        submit(call(0, 0, 1), "x");
        submit(call(0, 10, 1), "x");
        submit(call(0, 20, 1), "x");
        submit(call(0, 30, 1), "y");
        submit(call(0, 40, 1), "x");
        gathering.submit(script(call(0, 50, 1), Op.RELEASE, "x"));
        port.sent(0).reply().complete(reply("\0", 0));
        assertEquals(6, port.count());
        assertEquals(List.of("b1/20"), items(port.sent(2)));
        assertEquals(List.of("b1/30"), items(port.sent(3)));
        assertEquals(List.of("b1/40"), items(port.sent(4)));
        assertEquals(Op.RELEASE, port.sent(5).op());
    }

    @Test
    void aMergedCallThatFails_failsEveryBatchInIt_andTheShardServesTheNext() {
        submit(call(0, 0, 1), "same");
        submit(call(0, 10, 2), "same");
        CompletableFuture<CallGathering.Reply> c = submit(call(0, 20, 3), "same");
        CompletableFuture<CallGathering.Reply> d = submit(call(0, 30, 4), "same");
        port.sent(0).reply().complete(reply("\0", 0));
        RuntimeException down = new RuntimeException("shard down");
        port.sent(2).reply().completeExceptionally(down);
        assertSame(down, unwrap(c));
        assertSame(down, unwrap(d));
        submit(call(0, 40, 5), "same");
        assertEquals(4, port.count(), "one call in flight: the next goes at once");
    }

    private static Throwable unwrap(CompletableFuture<?> f) {
        try {
            f.join();
            throw new AssertionError("completed");
        } catch (CompletionException e) {
            return e.getCause();
        }
    }

    @Test
    void waitingCalls_groupBySameArguments_upToMaxItemsACall_butABiggerCallStillGoesAlone() {
        List<CallGathering.Pending> waiting = List.of(
                pending(3000, Op.CLAIM, "x"),
                pending(1000, Op.CLAIM, "x"),
                pending(200, Op.CLAIM, "x"),
                pending(5000, Op.CLAIM, "x"),
                pending(1, Op.CLAIM, "x"),
                pending(1, Op.RELEASE, "x"),
                pending(1, Op.RELEASE, "x"));
        List<List<Integer>> sizes = CallGathering.groups(waiting, FORM).stream()
                .map(g -> g.stream().map(CallGathering.Pending::items).toList())
                .toList();
        assertEquals(List.of(List.of(3000, 1000), List.of(200), List.of(5000), List.of(1), List.of(1, 1)), sizes);
        assertEquals(List.of(), CallGathering.groups(List.of(), FORM));
    }

    private static CallGathering.Pending pending(int items, Op op, String other) {
        CallPlan.Call call = new CallPlan.Call(
                0, new long[0], new byte[0][], new byte[0], new byte[items * ITEM_BYTES], new int[items]);
        return new CallGathering.Pending(script(call, op, other), 0, new CompletableFuture<>());
    }

    @Test
    void aMergedReply_isSlicedByCall_andAReplyWithoutAnswersReachesEveryCallAsItIs() {
        List<CallGathering.Reply> sliced = CallGathering.replies(reply("\1\2\0\2\1", 9), new int[] {2, 3});
        assertArrayEquals(new byte[] {1, 2}, sliced.get(0).answers());
        assertArrayEquals(new byte[] {0, 2, 1}, sliced.get(1).answers());
        assertTrue(sliced.get(0).first());
        assertFalse(sliced.get(1).first());

        List<Object> wroteNothing = List.of(new byte[0], 3L, 0L, 5L, "stale".getBytes(StandardCharsets.US_ASCII));
        for (CallGathering.Reply r : CallGathering.replies(wroteNothing, new int[] {2, 3})) {
            assertArrayEquals(new byte[0], r.answers());
            assertSame(wroteNothing, r.script());
            assertEquals(5, r.number(3));
            assertEquals(0, r.number(4), "not a number");
            assertEquals(0, r.number(9), "past the reply");
        }

        List<CallGathering.Reply> short_ = CallGathering.replies(reply("\1\2\0", 0), new int[] {2, 3});
        assertArrayEquals(new byte[] {1, 2}, short_.get(0).answers());
        assertArrayEquals(new byte[0], short_.get(1).answers(), "too few answers: none, never another's");
    }
}
