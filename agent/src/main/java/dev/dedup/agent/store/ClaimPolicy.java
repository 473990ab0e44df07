package dev.dedup.agent.store;

import dev.dedup.agent.config.WindowMode;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.codec.Batch;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How one namespace's claims are kept, resolved once per namespace by the claim service and passed with each
 * request through the store port: how long a claim is remembered, and whether claims are filed by the messages'
 * event time. The one place where the end of a claim is computed.
 *
 * <p>Without an event time a claim ends a window after it is made, on the wall clock. With one, a window
 * after the message's event time, on the namespace's event clock ({@link EventClocks}); an event time more than a
 * window ahead of the wall clock counts as a window ahead (so that no claim is kept longer than two windows,
 * whatever a producer's clock says).
 *
 * <p>In a sliding namespace every answer {@code retry} or {@code duplicate} also renews the claim: its
 * end becomes a window from then, as {@link #endMillis} computes it for a claim made then. A sliding namespace
 * ignores event times, and cannot file claims in time buckets (their buckets end together).
 *
 * @param windowMillis how long a claim is remembered
 * @param eventRate    the namespace's expected peak ids per second over all workers when it files claims in
 *                     per-second time buckets (the Redis tier sizes them by it), else 0
 * @param sliding      whether repeats renew the claim (AdMaster's renew-on-hit), else the window is fixed
 */
public record ClaimPolicy(long windowMillis, int eventRate, boolean sliding) {

    public ClaimPolicy {
        if (windowMillis < 1 || eventRate < 0 || (sliding && eventRate > 0)) {
            throw new IllegalArgumentException(
                    "window " + windowMillis + " ms, event rate " + eventRate + ", sliding " + sliding);
        }
    }

    /** A namespace's policy as the configuration sets it: its window, window mode and event rate. */
    public static ClaimPolicy of(WindowOptions windows, String namespace) {
        return new ClaimPolicy(
                windows.windowMillis(namespace),
                windows.eventRate(namespace),
                windows.windowMode(namespace) == WindowMode.SLIDING);
    }

    /**
     * The policy of every namespace the configuration does not name: its {@code *} entries (a {@code *} is never a
     * namespace, so it has no window of its own and takes the default window).
     */
    public static ClaimPolicy ofUnnamed(WindowOptions windows) {
        return of(windows, WindowOptions.EVERY_NAMESPACE);
    }

    /** The policy of each namespace the configuration names ({@link WindowOptions#named}), in the order named. */
    public static Map<String, ClaimPolicy> ofNamed(WindowOptions windows) {
        Map<String, ClaimPolicy> named = new LinkedHashMap<>();
        for (String ns : windows.named()) {
            named.put(ns, of(windows, ns));
        }
        return named;
    }

    /** Claims remembered for {@code windowMillis} from when they are made. */
    public static ClaimPolicy window(long windowMillis) {
        return new ClaimPolicy(windowMillis, 0, false);
    }

    /** Claims remembered for {@code windowMillis} from their latest repeat. */
    public static ClaimPolicy sliding(long windowMillis) {
        return new ClaimPolicy(windowMillis, 0, true);
    }

    /**
     * Whether the namespace files claims in per-second time buckets (Tapjoy's layout, on the Redis tier), so that
     * every item carries its event time.
     */
    public boolean timeBuckets() {
        return eventRate > 0;
    }

    /**
     * The second before which claims of a namespace whose event clock stands at {@code clock} have ended for good:
     * a window behind the clock. Until then a store keeps them, so that a reader up to a window behind the newest
     * (a partition read later than the others, a task retried) still finds every claim of its time; an item with an
     * event time finds a kept claim that ends after its event time ({@link EventClocks}).
     */
    public long heldSecond(long clock) {
        return clock + Math.floorDiv(-windowMillis, 1000L);
    }

    /**
     * Whether item {@code i}'s claim is late ({@link EventClocks}): it carries an event time whose end, a window
     * later, the namespace's clock {@code clock} has already reached.
     */
    public boolean late(Batch batch, int i, long clock) {
        long second = batch.eventSecond(i);
        return second != Batch.NO_EVENT_TIME
                && clock != Batch.NO_EVENT_TIME
                && second * 1000 + windowMillis <= clock * 1000;
    }

    /** Epoch millis at which item {@code i}'s claim, made at {@code nowMillis}, ends. */
    public long endMillis(Batch batch, int i, long nowMillis) {
        return endMillis(batch.eventSecond(i), nowMillis);
    }

    /**
     * Epoch millis at which a claim made at {@code nowMillis} ends, for a message of event second
     * {@code eventSecond}, or {@link Batch#NO_EVENT_TIME}.
     */
    public long endMillis(long eventSecond, long nowMillis) {
        if (eventSecond == Batch.NO_EVENT_TIME) {
            return nowMillis + windowMillis;
        }
        return Math.min(eventSecond * 1000, nowMillis + windowMillis) + windowMillis;
    }

    /**
     * The same end as a whole epoch second, rounded up: a claim lives at least its window and less than a
     * second more.
     */
    public long endSecond(long eventSecond, long nowMillis) {
        return -Math.floorDiv(-endMillis(eventSecond, nowMillis), 1000L);
    }

    /**
     * The end of a claim with an event time made when its namespace's event clock stands at {@code clock}
     * ({@link Batch#NO_EVENT_TIME}: none known): a window after its event time, or, for a late item (that end
     * already passed on the clock), a window after the clock, so that its own copies that follow it are caught.
     */
    public long endSecond(long eventSecond, long nowMillis, long clock) {
        long end = endSecond(eventSecond, nowMillis);
        return clock != Batch.NO_EVENT_TIME && end <= clock ? clock - Math.floorDiv(-windowMillis, 1000L) : end;
    }
}
