package dev.dedup.agent.store.embedded;

import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.embedded.disk.DataDirectory;
import dev.dedup.agent.store.embedded.disk.RandomAccessAdvice;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * {@code <dataDir>/claims.slots} mapped into memory, and the {@code <dataDir>/agent.lock} that keeps a
 * second agent away from it.
 *
 * <p>The file is a {@link SlotFileHeader} then {@code sets × ways} slots of {@value
 * SlotFileHeader#SLOT_BYTES} bytes. It is mapped in chunks of at most 1 GiB, each a whole number of
 * sets, because one {@link MappedByteBuffer} cannot pass 2 GiB and a set read across two chunks would
 * cost a branch on every probe. Writes to the mapping reach the page cache at once, so a killed agent
 * loses nothing; {@link #force()} is only needed against a machine crash. {@link #adviseRandomAccess()} tells
 * the kernel that the chunks are probed at random.
 *
 * <p>A new file is written under a temporary name and renamed into place, so a crash while creating it
 * never leaves a headerless file behind. The slot area is sparse until written.
 *
 * <p>A page of the mapping the file system cannot back (a full disk under the sparse file) faults when touched, and
 * Java reports that fault late: compiled code goes on with garbage for the read and without the write, and the
 * {@link InternalError} surfaces wherever the thread next checks, possibly after a verdict was built from it. So
 * before the mapping touches a {@value #BLOCK_BYTES}-byte block of the file for the first time, {@link #chunk}
 * writes the block's all-zero pages back through a file descriptor: the file system allocates them, and a full disk
 * is an ordinary write error, a {@link StoreUnavailableException}, before anything was read or written.
 *
 * <p>Not thread-safe as to opening and closing; reads and writes of slots go through the chunk
 * buffers' absolute accessors, which callers order with their own locks.
 */
final class SlotFile {

    static final String FILE_NAME = "claims.slots";
    static final String LOCK_NAME = "agent.lock";
    private static final long MAX_CHUNK_BYTES = 1L << 30;
    /** Allocated at once before the mapping touches it: a multiple of every page size Linux maps files with. */
    static final int BLOCK_BYTES = 64 * 1024;
    /** The file system's unit checked for zeros: a page of empty slots, or a hole. */
    private static final int PAGE_BYTES = 4096;
    /** What the count after an unclean stop reads at once: whole slots, whole sets. */
    private static final int COUNT_READ_BYTES = 1 << 20;
    /** What an unwritten block holds, and what is written to allocate one. */
    private static final byte[] ZEROS = new byte[BLOCK_BYTES];

    private final Path path;
    private final SlotFileHeader header;
    private final FileChannel lockChannel;
    private final long setsPerChunk;
    private final int setBytes;
    private final MappedByteBuffer[] chunks;
    private final MappedByteBuffer headerPage;
    /**
     * Reads and writes whole blocks, by position under {@link #allocated}'s monitor (or before any claim: {@link
     * #countOccupied}). Not a {@link FileChannel}: an interrupt of a thread inside one closes the channel for every
     * thread.
     */
    private final RandomAccessFile blocks;
    /** One bit per block of the file: set once the file system holds every page of the block. */
    private final AtomicLongArray allocated;
    /**
     * Whether this agent created the file: then every block but the header's is a hole until allocated here, and is
     * allocated without reading it first.
     */
    private final boolean created;
    /** A block as read, under {@link #allocated}'s monitor. */
    private final byte[] scratch = new byte[BLOCK_BYTES];

    private final long occupiedAtOpen;
    private boolean closed;

    private SlotFile(
            Path path,
            SlotFileHeader header,
            FileChannel lockChannel,
            RandomAccessFile blocks,
            boolean created,
            MappedByteBuffer headerPage,
            MappedByteBuffer[] chunks,
            long setsPerChunk) {
        this.path = path;
        this.created = created;
        this.header = header;
        this.lockChannel = lockChannel;
        this.blocks = blocks;
        this.headerPage = headerPage;
        this.chunks = chunks;
        this.setsPerChunk = setsPerChunk;
        this.setBytes = header.ways() * SlotFileHeader.SLOT_BYTES;
        long blockCount = (header.fileBytes() + BLOCK_BYTES - 1) / BLOCK_BYTES;
        this.allocated = new AtomicLongArray((int) ((blockCount + 63) / 64));
        boolean closedCleanly = headerPage.getInt(SlotFileHeader.OPEN_AT) == 0;
        this.occupiedAtOpen = closedCleanly ? headerPage.getLong(SlotFileHeader.OCCUPIED_AT) : -1;
        headerPage.putInt(SlotFileHeader.OPEN_AT, 1);
        headerPage.force();
    }

    /**
     * The occupied slots the last agent recorded when it closed the file, or -1 when it did not close it (it was
     * killed, or the machine stopped): then only {@link #countOccupied()} tells.
     */
    long occupiedAtOpen() {
        return occupiedAtOpen;
    }

    /**
     * Opens the slot file of {@code dataDir}, creating the directory and an empty table of {@code sets ×
     * ways} slots if there is none.
     *
     * @param nowMillis the clock, read once if the file is created: its second less {@link #BASE_BEFORE} becomes the
     *                  expiry base
     * @throws IllegalStateException with a one-line message naming the file or directory when another
     *                               agent holds the lock, the file has another shape or format, is
     *                               truncated, or cannot be read
     */
    /**
     * Seconds between a new file's expiry base and its creation: 2^31, 68 years. Slots count ends in 32 bits from the
     * base, so claims may end at any second from 68 years before the file's creation to 68 after: claims with the
     * event times of a replayed history included, which a base at creation would clamp to the base and could then
     * not tell ended from held. Files made with the base at their creation keep it.
     */
    static final long BASE_BEFORE = 1L << 31;

    static SlotFile open(Path dataDir, long sets, int ways, long nowMillis) {
        Path path = dataDir.resolve(FILE_NAME);
        FileChannel lockChannel = null;
        RandomAccessFile blocks = null;
        try {
            DataDirectory.prepare(dataDir);
            lockChannel =
                    DataDirectory.open(dataDir.resolve(LOCK_NAME), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            if (tryLock(lockChannel) == null) {
                throw new IllegalStateException("another agent is using " + dataDir + " (" + dataDir.resolve(LOCK_NAME)
                        + " is locked): stop it, or point --data-dir elsewhere");
            }
            boolean created = !Files.exists(path, LinkOption.NOFOLLOW_LINKS);
            if (created) {
                create(path, new SlotFileHeader(ways, sets, Math.floorDiv(nowMillis, 1000) - BASE_BEFORE, nowMillis));
            }
            try (FileChannel channel = DataDirectory.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                blocks = new RandomAccessFile(path.toFile(), "rw");
                if (!sameFile(channel, blocks)) {
                    throw new IllegalStateException("embedded store " + path + " was replaced while the agent opened"
                            + " it: only the agent's user should write " + dataDir);
                }
                SlotFileHeader header = readHeader(channel, path);
                header.requireShape(sets, ways, path);
                long size = channel.size();
                if (size != header.fileBytes()) {
                    throw new IllegalStateException("embedded store " + path + " is " + size + " bytes but its header"
                            + " says " + header.fileBytes() + " (truncated or damaged): move it away to start empty");
                }
                long setsPerChunk = MAX_CHUNK_BYTES / ((long) ways * SlotFileHeader.SLOT_BYTES);
                MappedByteBuffer headerPage = channel.map(FileChannel.MapMode.READ_WRITE, 0, SlotFileHeader.BYTES);
                // The mappings outlive the channel; closing it here leaves one descriptor fewer open.
                return new SlotFile(
                        path,
                        header,
                        lockChannel,
                        blocks,
                        created,
                        headerPage,
                        map(channel, header, setsPerChunk),
                        setsPerChunk);
            }
        } catch (IOException e) {
            closeQuietly(blocks);
            closeQuietly(lockChannel);
            throw new IllegalStateException("embedded store " + path + " cannot be opened: " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(blocks);
            closeQuietly(lockChannel);
            throw e;
        }
    }

    Path path() {
        return path;
    }

    /**
     * One line saying why a full disk would fault the agent, when the file is on a copy-on-write file system, else
     * null. Allocating blocks ahead of the mapping (see the class comment) keeps a full disk an error the agent sees
     * only where a page, once allocated, is written in place: btrfs, ZFS and bcachefs write every change of a page
     * to new space, so on a full disk a write through the mapping faults even where the file is allocated.
     */
    String copyOnWriteWarning() {
        String type;
        try {
            type = Files.getFileStore(path).type();
        } catch (IOException | RuntimeException e) {
            return null; // the type is only for the warning
        }
        return copyOnWriteWarning(path, type);
    }

    static String copyOnWriteWarning(Path path, String fileSystemType) {
        String type = fileSystemType.toLowerCase(java.util.Locale.ROOT);
        if (!(type.equals("btrfs") || type.equals("zfs") || type.equals("bcachefs"))) {
            return null;
        }
        return path + " is on " + type + ", a copy-on-write file system: every write to it needs free space, also"
                + " where the file is allocated, so a full disk faults the agent instead of answering 503 (claims left"
                + " unanswered, a stop that cannot close the file); keep space free there, or put --data-dir on ext4,"
                + " XFS or a tmpfs";
    }

    SlotFileHeader header() {
        return header;
    }

    /**
     * The chunk that holds {@code set}; index it from {@link #offset(long)}. The first call for a set's block
     * allocates the block (see the class comment).
     *
     * @throws StoreUnavailableException when the file system cannot allocate the block (a full disk)
     */
    ByteBuffer chunk(long set) {
        // A set never spans two blocks: sets start after the one-page header, and a set's size divides a page.
        long block = (SlotFileHeader.BYTES + set * setBytes) / BLOCK_BYTES;
        if ((allocated.get((int) (block >>> 6)) & (1L << block)) == 0) {
            allocate(block);
        }
        return chunks[(int) (set / setsPerChunk)];
    }

    /**
     * Writes the all-zero pages of {@code block} back to the file: holes become allocated pages of zeros, and pages
     * with slots in them are left alone. Nothing in this agent touches the block through the mapping before its bit
     * is set, so no write of a slot can fall between the read and the write here; the lock file keeps other agents
     * away.
     */
    private void allocate(long block) {
        synchronized (allocated) {
            if ((allocated.get((int) (block >>> 6)) & (1L << block)) != 0) {
                return;
            }
            long start = block * BLOCK_BYTES;
            int length = (int) Math.min(BLOCK_BYTES, header.fileBytes() - start);
            try {
                if (created && start >= SlotFileHeader.BYTES) {
                    writeBack(start, ZEROS, 0, length); // a hole: nothing in it to keep
                } else {
                    fillHoles(start, length);
                }
            } catch (IOException e) {
                throw new StoreUnavailableException(
                        "embedded store " + path + " cannot be read or written (disk full?): " + e.getMessage(), e);
            }
            allocated.getAndAccumulate((int) (block >>> 6), 1L << block, (bits, bit) -> bits | bit);
        }
    }

    /** Reads the block at {@code start} and writes its runs of all-zero pages back. Under the monitor. */
    private void fillHoles(long start, int length) throws IOException {
        byte[] bytes = scratch;
        blocks.seek(start);
        blocks.readFully(bytes, 0, length);
        int zeros = -1; // where the current run of all-zero pages began
        for (int at = 0; at < length; at += PAGE_BYTES) {
            if (isZero(bytes, at, Math.min(PAGE_BYTES, length - at))) {
                zeros = zeros < 0 ? at : zeros;
            } else if (zeros >= 0) {
                writeBack(start, bytes, zeros, at);
                zeros = -1;
            }
        }
        if (zeros >= 0) {
            writeBack(start, bytes, zeros, length);
        }
    }

    private void writeBack(long blockStart, byte[] bytes, int from, int to) throws IOException {
        blocks.seek(blockStart + from);
        blocks.write(bytes, from, to - from);
    }

    private static boolean isZero(byte[] bytes, int from, int length) {
        return java.util.Arrays.mismatch(bytes, from, from + length, ZEROS, 0, length) < 0;
    }

    /** Byte offset of {@code set}'s first slot within its {@link #chunk(long) chunk}. */
    int offset(long set) {
        return (int) (set % setsPerChunk) * setBytes;
    }

    /**
     * Counts the slots that hold a key: one pass over the whole file, needed only after an agent did not close it.
     * The pass reads through the file descriptor, in order, rather than through the mapping: a read of a hole through
     * a shared mapping allocates the page on a tmpfs (a pod's memory-backed volume), so counting that way would make
     * the whole sparse file resident, and fault at start where the mount is smaller than the file; {@code read} of a
     * hole allocates nothing anywhere. Nothing else touches the file yet.
     *
     * @throws IllegalStateException naming the file when it cannot be read
     */
    long countOccupied() {
        long occupied = 0;
        byte[] bytes = new byte[COUNT_READ_BYTES];
        ByteBuffer slots = ByteBuffer.wrap(bytes);
        long end = header.fileBytes();
        try {
            for (long at = SlotFileHeader.BYTES; at < end; ) {
                int length = (int) Math.min(bytes.length, end - at);
                blocks.seek(at);
                blocks.readFully(bytes, 0, length);
                for (int slot = 0; slot < length; slot += SlotFileHeader.SLOT_BYTES) {
                    if (slots.getLong(slot) != 0) {
                        occupied++;
                    }
                }
                at += length;
            }
        } catch (IOException e) {
            throw new IllegalStateException("embedded store " + path + " cannot be read to count its claims: " + e, e);
        }
        return occupied;
    }

    /**
     * Advises the kernel that every chunk is read at random ({@link RandomAccessAdvice}).
     *
     * @return null when it took the advice, else one line saying why not
     */
    String adviseRandomAccess() {
        for (MappedByteBuffer chunk : chunks) {
            String notAdvised = RandomAccessAdvice.advise(chunk);
            if (notAdvised != null) {
                return notAdvised;
            }
        }
        return null;
    }

    /** Writes every changed page of the mapping to disk (msync). */
    void force() {
        for (MappedByteBuffer chunk : chunks) {
            chunk.force();
        }
    }

    /**
     * Records {@code occupied} as the count of occupied slots for the next open, forces the mapping and releases
     * the lock. The pages are unmapped once nothing references this
     * object any more, since Java has no supported way to unmap at once; a claim still running on
     * another thread therefore never touches unmapped memory, and the next open of the same file simply
     * maps it again.
     */
    void close(long occupied) {
        if (closed) {
            return;
        }
        closed = true;
        try {
            force();
            headerPage.putLong(SlotFileHeader.OCCUPIED_AT, occupied);
            headerPage.putInt(SlotFileHeader.OPEN_AT, 0);
            headerPage.force();
        } finally {
            closeQuietly(blocks);
            closeQuietly(lockChannel);
        }
    }

    private static FileLock tryLock(FileChannel channel) throws IOException {
        try {
            return channel.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }

    /**
     * Whether {@code blocks} is the file {@code channel} has open. A {@link RandomAccessFile} is opened by name and
     * follows a link there; the channel was opened without, so the two are compared: this JVM keeps one table of locks
     * per file, and a lock taken through one overlaps the same region asked through the other only if both are the
     * same file. The region is past any slot, and the lock file keeps other processes away.
     */
    private static boolean sameFile(FileChannel channel, RandomAccessFile blocks) throws IOException {
        try (FileLock held = blocks.getChannel().tryLock(Long.MAX_VALUE - 1, 1, false)) {
            if (held == null) {
                return false;
            }
            FileLock other;
            try {
                other = channel.tryLock(Long.MAX_VALUE - 1, 1, false);
            } catch (OverlappingFileLockException same) {
                return true;
            }
            if (other != null) {
                other.release(); // granted: another file
            }
            return false;
        }
    }

    private static void create(Path path, SlotFileHeader header) throws IOException {
        Path temporary = path.resolveSibling(FILE_NAME + ".tmp");
        try (FileChannel channel = DataDirectory.createTemporary(temporary)) {
            ByteBuffer encoded = header.encode();
            while (encoded.hasRemaining()) {
                channel.write(encoded, encoded.position());
            }
            // One byte at the end sets the length; the slots between read as zero (empty).
            channel.write(ByteBuffer.allocate(1), header.fileBytes() - 1);
            channel.force(true);
        }
        Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE);
    }

    private static SlotFileHeader readHeader(FileChannel channel, Path path) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(SlotFileHeader.BYTES);
        while (buffer.hasRemaining() && channel.read(buffer, buffer.position()) > 0) {
            // keep reading: a read may return fewer bytes than asked
        }
        if (buffer.hasRemaining()) {
            throw new IllegalStateException("embedded store " + path + " is " + channel.size() + " bytes, shorter"
                    + " than its " + SlotFileHeader.BYTES + "-byte header (truncated): move it away to start empty");
        }
        return SlotFileHeader.decode(buffer, path);
    }

    private static MappedByteBuffer[] map(FileChannel channel, SlotFileHeader header, long setsPerChunk)
            throws IOException {
        long setBytes = (long) header.ways() * SlotFileHeader.SLOT_BYTES;
        int count = (int) ((header.sets() + setsPerChunk - 1) / setsPerChunk);
        MappedByteBuffer[] chunks = new MappedByteBuffer[count];
        for (int i = 0; i < count; i++) {
            long firstSet = i * setsPerChunk;
            long setsHere = Math.min(setsPerChunk, header.sets() - firstSet);
            chunks[i] = channel.map(
                    FileChannel.MapMode.READ_WRITE, SlotFileHeader.BYTES + firstSet * setBytes, setsHere * setBytes);
        }
        return chunks;
    }

    private static void closeQuietly(java.io.Closeable file) {
        if (file == null) {
            return;
        }
        try {
            file.close(); // a lock channel also releases its lock
        } catch (IOException e) {
            // nothing to do: the descriptor is gone either way
        }
    }
}
