package dev.dedup.agent.store.embedded;

import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.codec.Batch;
import dev.dedup.wire.Verdict;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;

/**
 * The claim and release rules over the sets of a {@link SlotFile}.
 *
 * <p>An id lives in set {@code route mod sets}, in any of its {@code ways} slots; a slot is the id's
 * 64-bit key then its {@link SlotMeta} (owner tag, expiry). A claim that finds the key unexpired answers
 * {@code retry} or {@code duplicate} and changes nothing, so a retry does not extend the window. A claim
 * that does not find it takes a slot: an empty one, else an expired one, else the one expiring soonest. Slots of
 * claims with an event time hold their end on the event clock of their namespace, which a claim of that namespace
 * compares them with; to any other claim they are ordered by their end like every other slot (event clocks lag
 * the wall clock, so a lagging namespace's claims are the first to go when a set is full).
 *
 * <p>Within a set the occupied slots are kept in the order they were written: a new claim goes after the
 * last occupied slot and the slots after the one it replaces move down by one. Ties on expiry (common
 * when many claims share a window and a second) then fall to the oldest claim, which makes the
 * replacement FIFO and {@link RetentionModel} exact; without it the lowest slot would churn while the
 * others never left.
 *
 * <p>Each set is guarded by one of {@value #LOCK_STRIPES} monitors chosen by its index, so claims of
 * different ids rarely wait for each other and the two of one id never interleave. The monitors also
 * order every thread's view of the mapped memory.
 */
final class ClaimTable {

    static final int LOCK_STRIPES = 4096;
    private static final int SLOT = SlotFileHeader.SLOT_BYTES;
    private static final byte NEW = Verdict.NEW.code();
    private static final byte RETRY = Verdict.RETRY.code();
    private static final byte DUPLICATE = Verdict.DUPLICATE.code();
    /** A claim that took an empty slot: {@code new}, and one more occupied slot. */
    private static final byte FILLED_EMPTY = -1;

    private final SlotFile file;
    private final long sets;
    private final int ways;
    private final long baseEpochSeconds;
    private final Object[] locks = new Object[LOCK_STRIPES];
    private final LongAdder occupied = new LongAdder();
    /** Written by {@link #setsOf}, read by nobody. */
    @SuppressWarnings("unused")
    private long prefetchSink;

    ClaimTable(SlotFile file) {
        this.file = file;
        this.sets = file.header().sets();
        this.ways = file.header().ways();
        this.baseEpochSeconds = file.header().baseEpochSeconds();
        for (int i = 0; i < LOCK_STRIPES; i++) {
            locks[i] = new Object();
        }
        long recorded = file.occupiedAtOpen();
        occupied.add(recorded >= 0 ? recorded : file.countOccupied());
    }

    /** Closes the file, recording the count of occupied slots in it. */
    void close() {
        file.close(occupied());
    }

    SlotFile file() {
        return file;
    }

    /** Slots holding a key, expired or not. */
    long occupied() {
        return occupied.sum();
    }

    /**
     * Claims each item in order; returns one {@link Verdict} code per item. Where the namespace has an event clock
     * {@code clock} (epoch seconds, {@link Batch#NO_EVENT_TIME} while none is known: then nothing of its has ended),
     * its slots are kept until the clock is a window past their end ({@link ClaimPolicy#heldSecond}), so that a reader
     * up to a window behind the newest still finds the claims of its time: an item with an event time finds a claim
     * that ends after that time; one without, a claim that ends after the clock (a copy sent without an event time
     * finds the claim of one sent with it, and a claim without one lasts at least its window). Elsewhere a claim is
     * held until the wall clock reaches its end.
     */
    byte[] claim(Batch batch, ClaimPolicy policy, long nowMillis, long clock) {
        long now = SlotMeta.nowSeconds(baseEpochSeconds, nowMillis);
        long expiry = SlotMeta.expiryAt(baseEpochSeconds, policy.endSecond(Batch.NO_EVENT_TIME, nowMillis));
        boolean eventTimes = batch.hasEventTimes();
        long eventNow = eventNow(clock);
        // What a claim of this namespace may take the place of: slots ended a window behind its clock, else on the
        // wall (an item with an event time, while the clock is unknown: none, so that nothing of a lagging stream
        // is taken for ended).
        long kept = clock == Batch.NO_EVENT_TIME ? now : eventNow(policy.heldSecond(clock));
        long keptByEvent = clock == Batch.NO_EVENT_TIME ? Long.MIN_VALUE : kept;
        long[] setOf = setsOf(batch);
        byte[] verdicts = new byte[batch.size()];
        int filled = 0;
        for (int i = 0; i < verdicts.length; i++) {
            long set = setOf[i];
            long second = eventTimes ? batch.eventSecond(i) : Batch.NO_EVENT_TIME;
            long itemNow = clock == Batch.NO_EVENT_TIME ? now : eventNow;
            long itemKept = kept;
            long itemExpiry = expiry;
            if (second != Batch.NO_EVENT_TIME) {
                // Held for this item: a kept claim that ends after its event time (the wall's second for one from
                // the future).
                itemKept = keptByEvent;
                itemNow = Math.max(keptByEvent, Math.min(second, Math.floorDiv(nowMillis, 1000L)) - baseEpochSeconds);
                itemExpiry = SlotMeta.expiryAt(baseEpochSeconds, policy.endSecond(second, nowMillis, clock));
            }
            synchronized (locks[(int) (set & (LOCK_STRIPES - 1))]) {
                byte v = claimInSet(set, batch.key(i), batch.owner(i), itemNow, itemKept, itemExpiry, policy.sliding());
                if (v == FILLED_EMPTY) {
                    filled++;
                    v = NEW;
                }
                verdicts[i] = v;
            }
        }
        occupied.add(filled);
        return verdicts;
    }

    /** An event clock as the slots' seconds count, or a second before any slot's end when none is known. */
    private long eventNow(long clock) {
        return clock == Batch.NO_EVENT_TIME ? Long.MIN_VALUE : clock - baseEpochSeconds;
    }

    /**
     * The set of every item, reading each set's first word on the way: the reads do not depend on each
     * other, so the processor overlaps their cache misses, and the claims that follow find their sets in
     * cache. On a table larger than the caches this halves the time of a batch.
     */
    private long[] setsOf(Batch batch) {
        long[] setOf = new long[batch.size()];
        long touched = 0;
        for (int i = 0; i < setOf.length; i++) {
            long set = Long.remainderUnsigned(batch.route(i), sets);
            setOf[i] = set;
            touched += file.chunk(set).getLong(file.offset(set));
        }
        prefetchSink = touched; // keeps the reads from being optimised away
        return setOf;
    }

    /**
     * Releases each item held by its owner; returns 1 per released item, else 0. Held as {@link #claim} keeps it:
     * in a namespace with an event clock {@code clock}, until the clock is a window past its end.
     */
    byte[] release(Batch batch, ClaimPolicy policy, long nowMillis, long clock) {
        long now = clock == Batch.NO_EVENT_TIME
                ? SlotMeta.nowSeconds(baseEpochSeconds, nowMillis)
                : eventNow(policy.heldSecond(clock));
        byte[] released = new byte[batch.size()];
        for (int i = 0; i < released.length; i++) {
            long set = Long.remainderUnsigned(batch.route(i), sets);
            synchronized (locks[(int) (set & (LOCK_STRIPES - 1))]) {
                released[i] = releaseInSet(set, batch.key(i), batch.owner(i), now);
            }
        }
        return released;
    }

    /**
     * Claims one id in its set. A claim of the id that has not ended at {@code now} answers {@code retry} or
     * {@code duplicate}; the claim may take the place of a slot ended at {@code kept} (no later than {@code now}). With
     * {@code renew} (a sliding window) its end moves to {@code expiry} when that is later: one aligned
     * 8-byte store, so a {@code kill -9} leaves the old end or the new one.
     */
    private byte claimInSet(long set, long key, long owner, long now, long kept, long expiry, boolean renew) {
        ByteBuffer b = file.chunk(set);
        int base = file.offset(set);
        int sameKey = -1;
        int firstEmpty = -1;
        int firstExpired = -1;
        int soonest = -1;
        long soonestExpiry = Long.MAX_VALUE;
        int lastOccupied = -1;
        for (int w = 0; w < ways; w++) {
            int at = base + w * SLOT;
            long slotKey = b.getLong(at);
            if (slotKey == 0) {
                if (firstEmpty < 0) {
                    firstEmpty = w;
                }
                continue;
            }
            lastOccupied = w;
            long meta = b.getLong(at + 8);
            boolean expired = SlotMeta.expired(meta, kept);
            if (slotKey == key) {
                if (!SlotMeta.expired(meta, now)) {
                    if (renew && expiry > SlotMeta.expiryOf(meta)) {
                        b.putLong(at + 8, SlotMeta.withExpiry(meta, expiry));
                    }
                    return SlotMeta.ownerTagOf(meta) == SlotMeta.ownerTag(owner) ? RETRY : DUPLICATE;
                }
                sameKey = w;
            }
            if (expired && firstExpired < 0) {
                firstExpired = w;
            }
            long slotExpiry = SlotMeta.expiryOf(meta);
            if (slotExpiry < soonestExpiry) {
                soonestExpiry = slotExpiry;
                soonest = w;
            }
        }
        // An expired copy of the key is reused so that a set never holds the key twice.
        int victim = sameKey >= 0 ? sameKey : firstEmpty >= 0 ? firstEmpty : firstExpired >= 0 ? firstExpired : soonest;
        boolean tookEmpty = b.getLong(base + victim * SLOT) == 0;
        int target = Math.max(victim, lastOccupied);
        for (int w = victim; w < target; w++) {
            int to = base + w * SLOT;
            b.putLong(to, b.getLong(to + SLOT));
            b.putLong(to + 8, b.getLong(to + SLOT + 8));
        }
        // Empty first, key last: a kill -9 between these stores leaves an empty slot, never a key with
        // another claim's owner.
        int at = base + target * SLOT;
        b.putLong(at, 0);
        b.putLong(at + 8, SlotMeta.of(owner, expiry));
        b.putLong(at, key);
        return tookEmpty ? FILLED_EMPTY : NEW;
    }

    /**
     * Clears every unexpired copy of the key held by the owner. A set holds a key once, except after a
     * {@code kill -9} in the middle of a claim's shift, which can leave one claim in two adjacent slots;
     * clearing both keeps the next claim of a released id {@code new}.
     */
    private byte releaseInSet(long set, long key, long owner, long now) {
        ByteBuffer b = file.chunk(set);
        int base = file.offset(set);
        byte released = 0;
        for (int w = 0; w < ways; w++) {
            int at = base + w * SLOT;
            if (b.getLong(at) != key) {
                continue;
            }
            long meta = b.getLong(at + 8);
            if (SlotMeta.expired(meta, now) || SlotMeta.ownerTagOf(meta) != SlotMeta.ownerTag(owner)) {
                continue;
            }
            b.putLong(at, 0);
            b.putLong(at + 8, 0);
            occupied.decrement();
            released = 1;
        }
        return released;
    }
}
