package dev.dedup.agent.store.embedded;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.embedded.disk.DataDirectory;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The embedded store's committed ranges: per (namespace, stream) its {@link StreamRanges} on the heap,
 * and every commit appended to a log file ({@code ranges.log} in the data directory) before it is
 * answered, so that a restart, even after {@code kill -9}, replays them. The log is rewritten with only
 * the live intervals at start and whenever it has grown to several times that.
 *
 * <p>Bounded: at most {@value #MAX_INTERVALS} live intervals in all (a stream committed in order is one);
 * a commit past that is refused as the store being full (503), never half applied.
 *
 * <p>A log record: {@code u16 nsLength, ns, u16 streamLength, stream, u8 fromLength, from digits, u8
 * toLength, to digits, i64 end millis}. A record cut short by a crash ends the replay there.
 */
final class RangeTable implements AutoCloseable {

    static final int MAX_INTERVALS = 100_000;
    private static final byte[] MAGIC = "DDRANGE1".getBytes(StandardCharsets.US_ASCII);
    /** Commits between two passes that drop ended intervals of every stream. */
    private static final int EXPIRE_EVERY = 4096;

    private record StreamKey(String namespace, String stream) {}

    private final Path file;
    private final Map<StreamKey, StreamRanges> streams = new HashMap<>();
    private FileChannel log;
    private long liveIntervals;
    private long logRecords;
    private int commitsSinceExpiry;

    /** Opens (or creates) the log under {@code dataDir} and replays it. */
    RangeTable(Path dataDir, long nowMillis) {
        this.file = dataDir.resolve("ranges.log");
        try {
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                replay(readAll(file), nowMillis);
            }
            rewrite(nowMillis);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the range log " + file + ": " + e.getMessage(), e);
        }
    }

    synchronized List<List<SequenceRange>> check(RangeRequest request, long nowMillis) {
        StreamRanges ranges = streams.get(new StreamKey(request.namespace(), request.stream()));
        List<List<SequenceRange>> done = new ArrayList<>(request.ranges().size());
        for (SequenceRange asked : request.ranges()) {
            done.add(ranges == null ? List.of() : ranges.done(asked, nowMillis));
        }
        return done;
    }

    /** Appends the commits to the log, then applies them; each ends at {@code endMillis}. */
    synchronized void commit(RangeRequest request, long endMillis, long nowMillis) {
        if (liveIntervals + growth(request, nowMillis) > MAX_INTERVALS
                && expireAll(nowMillis) >= 0
                && liveIntervals + growth(request, nowMillis) > MAX_INTERVALS) {
            throw new StoreUnavailableException(
                    FailureKind.FULL,
                    "the embedded range store holds " + liveIntervals
                            + " live intervals, its limit; commit ranges in order so that they merge",
                    null);
        }
        ByteArrayOutputStream out =
                new ByteArrayOutputStream(64 * request.ranges().size());
        for (SequenceRange r : request.ranges()) {
            record(out, request.namespace(), request.stream(), r.from(), r.to(), endMillis);
        }
        try {
            ByteBuffer bytes = ByteBuffer.wrap(out.toByteArray());
            while (bytes.hasRemaining()) {
                log.write(bytes);
            }
        } catch (IOException e) {
            throw new StoreUnavailableException(
                    FailureKind.IO, "cannot append to the range log " + file + ": " + e.getMessage(), e);
        }
        logRecords += request.ranges().size();
        apply(request.namespace(), request.stream(), request.ranges(), endMillis, nowMillis);
        if (++commitsSinceExpiry >= EXPIRE_EVERY) {
            expireAll(nowMillis);
        }
        if (logRecords > 4 * liveIntervals + 10_000) {
            try {
                rewrite(nowMillis);
            } catch (IOException e) {
                throw new StoreUnavailableException(
                        FailureKind.IO, "cannot rewrite the range log " + file + ": " + e.getMessage(), e);
            }
        }
    }

    /** At most how many intervals the request adds (ranges of one request that join each other count apart). */
    private long growth(RangeRequest request, long nowMillis) {
        StreamRanges s = streams.get(new StreamKey(request.namespace(), request.stream()));
        if (s == null) {
            return request.ranges().size();
        }
        long growth = 0;
        for (SequenceRange r : request.ranges()) {
            growth += s.growth(r.from(), r.to(), nowMillis);
        }
        return growth;
    }

    private void apply(String ns, String stream, List<SequenceRange> ranges, long endMillis, long nowMillis) {
        StreamRanges s = streams.computeIfAbsent(new StreamKey(ns, stream), k -> new StreamRanges());
        for (SequenceRange r : ranges) {
            liveIntervals += s.commit(r.from(), r.to(), endMillis, nowMillis);
        }
    }

    private int expireAll(long nowMillis) {
        commitsSinceExpiry = 0;
        int dropped = 0;
        var it = streams.values().iterator();
        while (it.hasNext()) {
            StreamRanges s = it.next();
            dropped += s.expire(nowMillis);
            if (s.size() == 0) {
                it.remove();
            }
        }
        liveIntervals -= dropped;
        return dropped;
    }

    synchronized long intervals() {
        return liveIntervals;
    }

    synchronized int streams() {
        return streams.size();
    }

    /** Forces the log to disk. */
    synchronized void flush() {
        try {
            log.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public synchronized void close() {
        try {
            log.force(false);
            log.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void replay(byte[] bytes, long nowMillis) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        byte[] magic = new byte[MAGIC.length];
        if (b.remaining() < MAGIC.length) {
            return;
        }
        b.get(magic);
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            throw new IllegalStateException(file + " is not a range log of this agent (bad magic)");
        }
        while (b.hasRemaining()) {
            int at = b.position();
            try {
                String ns = string(b, b.getShort() & 0xffff);
                String stream = string(b, b.getShort() & 0xffff);
                BigInteger from = new BigInteger(string(b, b.get() & 0xff));
                BigInteger to = new BigInteger(string(b, b.get() & 0xff));
                long end = b.getLong();
                if (end > nowMillis) { // an ended record must not shorten a live neighbour it merges with
                    apply(ns, stream, List.of(new SequenceRange(from, to)), end, nowMillis);
                }
            } catch (java.nio.BufferUnderflowException | IllegalArgumentException e) {
                System.getLogger(RangeTable.class.getName())
                        .log(
                                System.Logger.Level.WARNING,
                                file + ": record at byte " + at + " is cut short or damaged; replayed up to it");
                return;
            }
        }
        expireAll(nowMillis);
    }

    private static byte[] readAll(Path file) throws IOException {
        try (FileChannel c = DataDirectory.open(file, StandardOpenOption.READ)) {
            long size = c.size();
            if (size > Integer.MAX_VALUE - 8) {
                throw new IOException(file + " is " + size + " bytes, more than a range log holds");
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) size);
            while (bytes.hasRemaining() && c.read(bytes) >= 0) {
                // keep reading: a read may return fewer bytes than asked
            }
            return java.util.Arrays.copyOf(bytes.array(), bytes.position());
        }
    }

    private static String string(ByteBuffer b, int length) {
        byte[] s = new byte[length];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }

    /** Writes the live intervals to a new log and switches to it atomically. */
    private void rewrite(long nowMillis) throws IOException {
        expireAll(nowMillis);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(MAGIC);
        long records = 0;
        for (Map.Entry<StreamKey, StreamRanges> e : streams.entrySet()) {
            for (StreamRanges.Interval i : e.getValue().intervals()) {
                record(out, e.getKey().namespace(), e.getKey().stream(), i.from(), i.to(), i.endMillis());
                records++;
            }
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (FileChannel c = DataDirectory.createTemporary(tmp)) {
            ByteBuffer bytes = ByteBuffer.wrap(out.toByteArray());
            while (bytes.hasRemaining()) {
                c.write(bytes);
            }
            c.force(true);
        }
        if (log != null) {
            log.close();
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        log = DataDirectory.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        logRecords = records;
    }

    private static void record(
            ByteArrayOutputStream out, String ns, String stream, BigInteger from, BigInteger to, long endMillis) {
        byte[] n = ns.getBytes(StandardCharsets.UTF_8);
        byte[] s = stream.getBytes(StandardCharsets.UTF_8);
        byte[] f = from.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] t = to.toString().getBytes(StandardCharsets.US_ASCII);
        ByteBuffer b = ByteBuffer.allocate(2 + n.length + 2 + s.length + 1 + f.length + 1 + t.length + 8);
        b.putShort((short) n.length).put(n).putShort((short) s.length).put(s);
        b.put((byte) f.length).put(f).put((byte) t.length).put(t).putLong(endMillis);
        out.writeBytes(b.array());
    }
}
