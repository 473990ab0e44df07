package dev.dedup.agent.store.embedded;

import static dev.dedup.agent.store.embedded.TestBatches.batch;
import static dev.dedup.agent.store.embedded.TestBatches.codes;
import static dev.dedup.agent.store.embedded.TestBatches.join;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.store.ClaimPolicy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedStorePersistenceTest {

    private static final long WINDOW = 3_600_000;

    @TempDir
    Path dir;

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);

    private EmbeddedStore open(long slots, int ways) {
        return new EmbeddedStore(new EmbeddedStoreOptions(dir, slots, ways), clock::get);
    }

    private Path slotFile() {
        return dir.resolve("claims.slots");
    }

    @Test
    void claimsSurviveCloseAndReopen() {
        try (EmbeddedStore store = open(4096, 8)) {
            join(store.claim(batch("ns", "w1", "a", "b", "c"), ClaimPolicy.window(WINDOW)));
            join(store.release(batch("ns", "w1", "c"), ClaimPolicy.window(60_000)));
        }
        clock.addAndGet(60_000);
        try (EmbeddedStore store = open(4096, 8)) {
            assertArrayEquals(codes(1), join(store.claim(batch("ns", "w1", "a"), ClaimPolicy.window(WINDOW))));
            assertArrayEquals(codes(2, 0), join(store.claim(batch("ns", "w2", "b", "c"), ClaimPolicy.window(WINDOW))));
        }
    }

    @Test
    void expiriesCountFromTheFileNotFromTheRestart() {
        try (EmbeddedStore store = open(4096, 8)) {
            join(store.claim(batch("ns", "w1", "a"), ClaimPolicy.window(10_000)));
        }
        clock.addAndGet(11_000);
        try (EmbeddedStore store = open(4096, 8)) {
            assertArrayEquals(codes(0), join(store.claim(batch("ns", "w2", "a"), ClaimPolicy.window(10_000))));
        }
    }

    @Test
    void reopenWithOtherSlotsFailsSayingWhatToStartWith() {
        open(65_536, 8).close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> open(1024, 8));
        assertEquals(
                "embedded store " + slotFile() + " holds 65536 slots (8-way) but --embedded-slots asks for"
                        + " 1024: start with --embedded-slots 65536, or move the file away to start empty",
                e.getMessage());
        // the failed open must not keep the directory locked
        open(65_536, 8).close();
    }

    @Test
    void reopenWithOtherWaysFailsSayingWhatToStartWith() {
        open(65_536, 8).close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> open(65_536, 16));
        assertTrue(
                e.getMessage()
                        .contains("holds 65536 slots (8-way) but --embedded-ways asks for 16: start with"
                                + " --embedded-ways 8"),
                e.getMessage());
        assertTrue(e.getMessage().indexOf('\n') < 0);
    }

    @Test
    void secondOpenWhileTheFirstHoldsTheLockFails() {
        try (EmbeddedStore first = open(4096, 8)) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> open(4096, 8));
            assertTrue(e.getMessage().startsWith("another agent is using " + dir), e.getMessage());
            join(first.claim(batch("ns", "w1", "a"), ClaimPolicy.window(WINDOW)));
        }
        open(4096, 8).close();
    }

    @Test
    void truncatedFileFailsClearly() throws IOException {
        open(4096, 8).close();
        try (FileChannel channel = FileChannel.open(slotFile(), StandardOpenOption.WRITE)) {
            channel.truncate(4096 + 1000 * 16);
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> open(4096, 8));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
        assertTrue(e.getMessage().contains(slotFile().toString()), e.getMessage());
    }

    @Test
    void fileShorterThanItsHeaderFailsClearly() throws IOException {
        Files.write(slotFile(), new byte[100]);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> open(4096, 8));
        assertTrue(e.getMessage().contains("truncated"), e.getMessage());
    }

    @Test
    void garbageFileFailsClearly() throws IOException {
        byte[] garbage = new byte[4096 + 4096 * 16];
        new Random(7).nextBytes(garbage);
        Files.write(slotFile(), garbage);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> open(4096, 8));
        assertTrue(e.getMessage().contains("is not a slot file"), e.getMessage());
        assertTrue(e.getMessage().contains("move it away"), e.getMessage());
    }

    @Test
    void otherFormatVersionFailsClearly() throws IOException {
        open(4096, 8).close();
        try (FileChannel channel = FileChannel.open(slotFile(), StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.allocate(4).putInt(0, 2), 8);
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> open(4096, 8));
        assertTrue(e.getMessage().contains("format version 2"), e.getMessage());
    }

    @Test
    void newFileHasTheDocumentedHeader() throws IOException {
        open(4096, 8).close();
        ByteBuffer header = ByteBuffer.wrap(Files.readAllBytes(slotFile()));
        assertEquals(4096 + 4096 * 16, header.capacity());
        assertEquals("DEDUPSLT", new String(header.array(), 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(1, header.getInt(8));
        assertEquals(16, header.getInt(12));
        assertEquals(8, header.getInt(16));
        assertEquals(512, header.getLong(24));
        assertEquals(1_700_000_000L - (1L << 31), header.getLong(32), "68 years before its creation");
        assertEquals(1_700_000_000_000L, header.getLong(40));
        assertEquals(0, header.getInt(20), "closed");
        assertEquals(0, header.getLong(48), "occupied slots at the close");
        assertTrue(Files.exists(dir.resolve("agent.lock")));
    }

    @Test
    void anOpenFileIsMarkedOpenAndAClosedOneRecordsItsOccupiedSlots() throws IOException {
        try (EmbeddedStore store = open(4096, 8)) {
            join(store.claim(batch("ns", "w1", "a", "b", "c"), ClaimPolicy.window(WINDOW)));
            assertEquals(1, headerInt(20), "open");
        }
        assertEquals(0, headerInt(20), "closed");
        assertEquals(3, headerLong(48));
        try (EmbeddedStore store = open(4096, 8)) {
            assertEquals(3, store.occupiedSlots());
        }
    }

    @Test
    void aFileNotClosedByItsAgentIsCountedByReadingIt() throws IOException {
        try (EmbeddedStore store = open(4096, 8)) {
            join(store.claim(batch("ns", "w1", "a", "b", "c", "d"), ClaimPolicy.window(WINDOW)));
        }
        // as a killed agent leaves it: marked open, with a count that is no longer true
        writeHeader(ByteBuffer.allocate(4).putInt(0, 1), 20);
        writeHeader(ByteBuffer.allocate(8).putLong(0, 99), 48);
        try (EmbeddedStore store = open(4096, 8)) {
            assertEquals(4, store.occupiedSlots());
        }
        assertEquals(4, headerLong(48));
    }

    private int headerInt(int at) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(slotFile())).getInt(at);
    }

    private long headerLong(int at) throws IOException {
        return ByteBuffer.wrap(Files.readAllBytes(slotFile())).getLong(at);
    }

    private void writeHeader(ByteBuffer bytes, long at) throws IOException {
        try (FileChannel channel = FileChannel.open(slotFile(), StandardOpenOption.WRITE)) {
            channel.write(bytes, at);
        }
    }

    @Test
    void createsAMissingDataDirectory() {
        Path nested = dir.resolve("a/b");
        new EmbeddedStore(new EmbeddedStoreOptions(nested, 1024, 4), clock::get).close();
        assertTrue(Files.exists(nested.resolve("claims.slots")));
    }
}
