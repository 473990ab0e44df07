package dev.dedup.agent.store;

import dev.dedup.codec.Batch;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Each namespace's event clock: the newest event second claimed in it, never ahead of the wall clock. A claim
 * whose item carries its message's event time ends a window after that time <em>on this clock</em>, not on the
 * wall's, so a job that stalls or falls behind does not see its claims end under it: the clock stands still with
 * the stream it reads (Spark's watermark, with the window as its delay).
 *
 * <p>Readers of one namespace do not move together: partitions read in turn, a task retried, an executor slower
 * than the others. So a store keeps a claim until the clock is a window past its end ({@link
 * ClaimPolicy#heldSecond}), and an item with an event time is a copy of a kept claim that ends after its own event
 * time (the two lie within a window of each other), wherever the clock stands: a reader up to a window behind the
 * newest answers exactly. This is the state Spark's {@code dropDuplicatesWithinWatermark} keeps with the window as
 * its delay: two windows of event time.
 *
 * <p>An item a window or more behind the clock is late: the claims it could be a copy of may be gone. It is
 * answered by what is kept (the claim service counts it), and claimed for a window from the clock, so that its own
 * copies that follow it are caught.
 *
 * <p>A store keeps the clock where it decides claims: the embedded store in one of these, the Redis tier in each
 * table's state on each shard, of which the agent keeps here what the replies told it. One instance per store,
 * shared by every thread.
 */
public final class EventClocks {

    /** The clocks of a store that keeps none: never advanced. */
    public static final EventClocks NONE = new EventClocks();

    private final Map<String, AtomicLong> clocks = new ConcurrentHashMap<>();

    /** The namespace's clock in epoch seconds, or {@link Batch#NO_EVENT_TIME} while it has claimed no event time. */
    public long clock(String namespace) {
        AtomicLong c = clocks.get(namespace);
        return c == null ? Batch.NO_EVENT_TIME : c.get();
    }

    /**
     * Moves the namespace's clock to {@code second} if that is later, but never past {@code wallMillis}: a producer
     * whose clock runs ahead must not end every other claim early.
     */
    public void advance(String namespace, long second, long wallMillis) {
        if (second == Batch.NO_EVENT_TIME || this == NONE) {
            return;
        }
        long bounded = Math.min(second, Math.floorDiv(wallMillis, 1000L));
        clocks.computeIfAbsent(namespace, ns -> new AtomicLong(Batch.NO_EVENT_TIME))
                .accumulateAndGet(bounded, Math::max);
    }

    /** Moves the namespace's clock to the newest event second of {@code batch}, bounded as {@link #advance} is. */
    public void advance(Batch batch, long wallMillis) {
        advance(batch.namespace(), newest(batch), wallMillis);
    }

    /** The newest event second of a batch's items, or {@link Batch#NO_EVENT_TIME} when none carries one. */
    public static long newest(Batch batch) {
        long newest = Batch.NO_EVENT_TIME;
        if (batch.hasEventTimes()) {
            for (int i = 0; i < batch.size(); i++) {
                newest = Math.max(newest, batch.eventSecond(i));
            }
        }
        return newest;
    }

    /** Every namespace's clock. */
    public Map<String, Long> all() {
        Map<String, Long> out = new TreeMap<>();
        clocks.forEach((ns, c) -> out.put(ns, c.get()));
        return out;
    }
}
