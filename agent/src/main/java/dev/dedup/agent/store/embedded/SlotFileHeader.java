package dev.dedup.agent.store.embedded;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The first {@value #BYTES} bytes of {@code claims.slots}: what the table's shape is and when its clock
 * starts. Everything is big-endian, as {@link ByteBuffer} writes by default, so a file moved to a
 * machine of the other byte order still reads the same.
 *
 * <pre>
 *   0  8 bytes  magic "DEDUPSLT"
 *   8  int      format version (1)
 *  12  int      bytes per slot (16)
 *  16  int      ways (slots per set)
 *  20  int      1 while an agent has the file open, 0 after it closed it
 *  24  long     sets
 *  32  long     base epoch seconds: slot expiries count seconds from here
 *  40  long     created at, epoch millis
 *  48  long     occupied slots when it was last closed (read only when the int at 20 is 0)
 *  56  …        zero up to 4096
 * </pre>
 *
 * @param ways             slots per set
 * @param sets             number of sets
 * @param baseEpochSeconds clock second the slot expiries count from (2^31 s before the creation, floored; the
 *                         creation itself in files made before claims ended on event clocks)
 * @param createdAtMillis  clock time of creation
 */
record SlotFileHeader(int ways, long sets, long baseEpochSeconds, long createdAtMillis) {

    /** Header size: one page, so the slots that follow start page-aligned. */
    static final int BYTES = 4096;

    static final int VERSION = 1;
    /** Offset of the int that is 1 while an agent has the file open. */
    static final int OPEN_AT = 20;
    /** Offset of the count of occupied slots at the last close. */
    static final int OCCUPIED_AT = 48;

    static final int SLOT_BYTES = 16;
    private static final byte[] MAGIC = "DEDUPSLT".getBytes(StandardCharsets.US_ASCII);

    /** Bytes of the whole file: the header and every slot. */
    long fileBytes() {
        return BYTES + sets * ways * SLOT_BYTES;
    }

    long slots() {
        return sets * ways;
    }

    ByteBuffer encode() {
        ByteBuffer b = ByteBuffer.allocate(BYTES);
        b.put(MAGIC).putInt(VERSION).putInt(SLOT_BYTES).putInt(ways).putInt(0);
        b.putLong(sets).putLong(baseEpochSeconds).putLong(createdAtMillis);
        return b.clear();
    }

    /**
     * Reads a header, refusing anything this code did not write in this format.
     *
     * @throws IllegalStateException naming {@code file} and what is wrong with it
     */
    static SlotFileHeader decode(ByteBuffer b, Path file) {
        byte[] magic = new byte[MAGIC.length];
        b.get(0, magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new IllegalStateException("embedded store " + file + " is not a slot file (no DEDUPSLT header):"
                    + " move it away to start empty, or point --data-dir elsewhere");
        }
        int version = b.getInt(8);
        int slotBytes = b.getInt(12);
        if (version != VERSION || slotBytes != SLOT_BYTES) {
            throw new IllegalStateException("embedded store " + file + " has format version " + version + " with "
                    + slotBytes + "-byte slots, this agent reads version " + VERSION + " with " + SLOT_BYTES
                    + "-byte slots: run the agent version that wrote it, or move the file away to start empty");
        }
        int ways = b.getInt(16);
        long sets = b.getLong(24);
        if (ways < 1 || sets < 1 || sets > (Long.MAX_VALUE - BYTES) / SLOT_BYTES / ways) {
            throw new IllegalStateException("embedded store " + file + " has a damaged header (" + sets + " sets of "
                    + ways + " ways): move the file away to start empty");
        }
        return new SlotFileHeader(ways, sets, b.getLong(32), b.getLong(40));
    }

    /**
     * Throws unless this header describes a table of {@code wantedSets × wantedWays}, with a message that
     * says which option to use to open the file as it is.
     */
    void requireShape(long wantedSets, int wantedWays, Path file) {
        if (sets == wantedSets && ways == wantedWays) {
            return;
        }
        String held = "embedded store " + file + " holds " + slots() + " slots (" + ways + "-way)";
        String fix;
        if (ways == wantedWays) {
            fix = " but --embedded-slots asks for " + wantedSets * wantedWays + ": start with --embedded-slots "
                    + slots();
        } else if (sets * ways == wantedSets * wantedWays) {
            fix = " but --embedded-ways asks for " + wantedWays + ": start with --embedded-ways " + ways;
        } else {
            fix = " but the options ask for " + wantedSets * wantedWays + " slots (" + wantedWays + "-way): start"
                    + " with --embedded-slots " + slots() + " --embedded-ways " + ways;
        }
        throw new IllegalStateException(held + fix + ", or move the file away to start empty");
    }
}
