package dev.dedup.agent.store.embedded;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.agent.store.EventClocks;
import dev.dedup.agent.store.RangeStore;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.codec.Batch;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import dev.dedup.wire.Verdict;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The store of a single agent without Redis: claims in a fixed-size, set-associative table in {@code
 * <dataDir>/claims.slots}, which survives restarts.
 *
 * <p>Capacity is fixed when the file is created. When a set is full a claim replaces an expired slot,
 * else the claim that expires soonest, so the table never fails for lack of room; it forgets: an id
 * claimed long enough ago, by {@link RetentionModel}'s count of later ids, may be answered {@code new}
 * again. {@link #stats()} reports how long that takes at the current rate of new claims.
 *
 * <p>Claims and releases run on the caller's thread and return stages that are already complete: the
 * work is a few reads and writes of mapped memory under a per-set monitor, cheaper than handing it to
 * another thread. It may touch the disk when a page of the file is not resident yet. Claims live for
 * their window rounded up to the next whole second of the clock.
 *
 * <p>Committed ranges of ordered streams live beside it, in a {@link RangeTable} ({@code
 * <dataDir>/ranges.log}).
 *
 * <p>After {@link #close()} every claim and release fails with {@link StoreUnavailableException}.
 */
public final class EmbeddedStore implements ClaimStore, RangeStore {

    private final LongSupplier clockMillis;
    private final int ways;
    private final long sets;
    private final long retentionIds90;
    private final ClaimRate newClaims;
    private final EventClocks clocks = new EventClocks();
    private volatile ClaimTable table;
    private final RangeTable ranges;

    /**
     * Opens the table of {@code options.dataDir()}, creating it empty if there is none.
     *
     * @param clockMillis the wall clock in epoch millis ({@code System::currentTimeMillis}); claim expiries
     *                    are stored as seconds of it, so it must survive restarts, unlike {@code nanoTime}
     * @throws IllegalStateException with a one-line message saying what to do, when another agent uses
     *                               the directory or the file there has another shape, another format, or
     *                               is damaged
     */
    public EmbeddedStore(EmbeddedStoreOptions options, LongSupplier clockMillis) {
        this(options.dataDir(), options.sets(), options.ways(), clockMillis);
    }

    /** Any shape, including the 1-way (direct-mapped) table the options do not offer, for comparisons. */
    EmbeddedStore(Path dataDir, long sets, int ways, LongSupplier clockMillis) {
        this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
        long now = clockMillis.getAsLong();
        SlotFile file = SlotFile.open(dataDir, sets, ways, now);
        try {
            this.ranges = new RangeTable(dataDir, now);
        } catch (RuntimeException e) {
            file.close(file.occupiedAtOpen());
            throw new IllegalStateException("embedded store " + dataDir + ": " + e.getMessage(), e);
        }
        try {
            this.table = new ClaimTable(file); // counts the file's claims after an unclean stop
        } catch (RuntimeException e) {
            ranges.close();
            file.close(file.occupiedAtOpen());
            throw e;
        }
        this.ways = ways;
        this.sets = sets;
        this.retentionIds90 = RetentionModel.idsRemembered(ways, sets, 0.9);
        this.newClaims = new ClaimRate(now);
    }

    @Override
    public String kind() {
        return "embedded";
    }

    @Override
    public CompletionStage<List<List<SequenceRange>>> checkRanges(RangeRequest request, ClaimPolicy policy) {
        if (table == null) {
            return closed();
        }
        return CompletableFuture.completedFuture(ranges.check(request, clockMillis.getAsLong()));
    }

    @Override
    public CompletionStage<Void> commitRanges(RangeRequest request, ClaimPolicy policy) {
        if (table == null) {
            return closed();
        }
        long now = clockMillis.getAsLong();
        try {
            ranges.commit(request, now + policy.windowMillis(), now);
        } catch (StoreUnavailableException e) {
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<byte[]> claim(Batch batch, ClaimPolicy policy) {
        ClaimTable t = table;
        if (t == null) {
            return closed();
        }
        long now = clockMillis.getAsLong();
        byte[] verdicts;
        try {
            verdicts = t.claim(batch, policy, now, clocks.clock(batch.namespace()));
        } catch (StoreUnavailableException e) {
            return CompletableFuture.failedFuture(e);
        } catch (InternalError e) {
            return unwritable(t, e);
        }
        clocks.advance(batch, now);
        newClaims.record(countNew(verdicts), now);
        return CompletableFuture.completedFuture(verdicts);
    }

    @Override
    public CompletionStage<byte[]> release(Batch batch, ClaimPolicy policy) {
        ClaimTable t = table;
        if (t == null) {
            return closed();
        }
        try {
            return CompletableFuture.completedFuture(
                    t.release(batch, policy, clockMillis.getAsLong(), clocks.clock(batch.namespace())));
        } catch (StoreUnavailableException e) {
            return CompletableFuture.failedFuture(e);
        } catch (InternalError e) {
            return unwritable(t, e);
        }
    }

    @Override
    public EventClocks eventClocks() {
        return clocks;
    }

    @Override
    public CompletionStage<Void> ready() {
        return table == null ? closed() : CompletableFuture.completedFuture(null);
    }

    /**
     * Advises the kernel that the slot file is read at random, so that a claim that misses a page of it reads
     * that page alone instead of the device's read-ahead around it: within a memory limit below the file's size,
     * read-ahead fills the limit with pages no claim asked for and the store slows to the disk's pace. Linking the
     * call takes tens of milliseconds of CPU the first time, which the agent spends once it listens.
     *
     * @return null when the kernel took the advice (or the store is closed), else one line saying why not
     */
    public String adviseRandomAccess() {
        ClaimTable t = table;
        return t == null ? null : t.file().adviseRandomAccess();
    }

    /**
     * One line of warning when the slot file is on a copy-on-write file system, where a full disk faults the agent
     * instead of being answered 503; else null (or when the store is closed).
     */
    public String copyOnWriteWarning() {
        ClaimTable t = table;
        return t == null ? null : t.file().copyOnWriteWarning();
    }

    /** Slots holding a claim, live or expired: the table's fill in ids. */
    public long occupiedSlots() {
        ClaimTable t = table;
        return t == null ? 0 : t.occupied();
    }

    /** Capacity in ids: sets × ways. */
    public long slots() {
        return sets * ways;
    }

    /**
     * {@code file}, {@code slots}, {@code ways}, {@code sets}, {@code file_bytes}, {@code occupied_slots},
     * {@code fill} (0 to 1), {@code retention_ids_90} (later ids after which an id is still remembered
     * with 90 % probability), {@code new_claims_per_second} (last minute) and {@code
     * estimated_retention_seconds} (the two combined; {@code null} while nothing is claimed).
     */
    @Override
    public Map<String, Object> stats() {
        ClaimTable t = table;
        long now = clockMillis.getAsLong();
        long occupied = occupiedSlots();
        double rate = newClaims.perSecond(now);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("file", t == null ? null : t.file().path().toString());
        stats.put("slots", slots());
        stats.put("ways", ways);
        stats.put("sets", sets);
        stats.put("file_bytes", t == null ? null : t.file().header().fileBytes());
        stats.put("occupied_slots", occupied);
        stats.put("fill", (double) occupied / slots());
        stats.put("retention_ids_90", retentionIds90);
        stats.put("new_claims_per_second", rate);
        stats.put("estimated_retention_seconds", rate > 0 ? retentionIds90 / rate : null);
        stats.put("range_streams", ranges.streams());
        stats.put("range_intervals", ranges.intervals());
        return stats;
    }

    /** Forces the mapped file to disk; a no-op once closed. */
    @Override
    public void flush() {
        ClaimTable t = table;
        if (t != null) {
            t.file().force();
            ranges.flush();
        }
    }

    @Override
    public void close() {
        ClaimTable t;
        synchronized (this) {
            t = table;
            table = null;
        }
        if (t != null) {
            t.close();
            ranges.close();
        }
    }

    private static int countNew(byte[] verdicts) {
        int n = 0;
        for (byte v : verdicts) {
            if (v == Verdict.NEW.code()) {
                n++;
            }
        }
        return n;
    }

    private static <T> CompletionStage<T> closed() {
        return CompletableFuture.failedFuture(new StoreUnavailableException("embedded store is closed"));
    }

    /**
     * The JVM reports a fault on mapped memory this way: the slot file allocates its pages before use (a full disk
     * is a {@link StoreUnavailableException} from it), so what is left is a page the disk could not read.
     */
    private static <T> CompletionStage<T> unwritable(ClaimTable t, InternalError e) {
        return CompletableFuture.failedFuture(new StoreUnavailableException(
                "embedded store " + t.file().path() + " cannot be read or written (disk full?): " + e.getMessage(), e));
    }
}
