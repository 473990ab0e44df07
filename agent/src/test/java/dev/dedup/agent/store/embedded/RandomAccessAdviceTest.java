package dev.dedup.agent.store.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dedup.agent.store.embedded.disk.RandomAccessAdvice;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RandomAccessAdviceTest {

    @TempDir
    Path dir;

    @Test
    void mappingIsMarkedRandomReadOnJava22AndLater_elseTheReasonNamesTheJava() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/self/smaps")), "Linux only: the advice is read back from smaps");
        Path file = dir.resolve("advised.slots");
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            channel.truncate(1 << 20);
            // an offset that is not a page's start, as the slot file's chunks after its header are
            MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 64, (1 << 20) - 64);
            mapping.put(0, (byte) 1);

            String notAdvised = RandomAccessAdvice.advise(mapping);

            if (Runtime.version().feature() >= 22) {
                assertNull(notAdvised);
                assertEquals(List.of(true), randomReadFlags(file));
            } else {
                assertTrue(notAdvised.contains("Java " + Runtime.version().feature()), notAdvised);
                assertEquals(List.of(false), randomReadFlags(file));
            }
        }
    }

    @Test
    void storeAdvisesItsSlotFileWhenAsked_onJava22AndLater() throws IOException {
        assumeTrue(Files.isReadable(Path.of("/proc/self/smaps")), "Linux only: the advice is read back from smaps");
        EmbeddedStore store = new EmbeddedStore(dir, 1 << 12, 8, () -> 1_700_000_000_000L);
        try {
            Path file = dir.resolve(SlotFile.FILE_NAME);
            assertEquals(
                    List.of(), randomReadFlags(file).stream().filter(f -> f).toList(), "advised before asked");

            String notAdvised = store.adviseRandomAccess();

            List<Boolean> flags = randomReadFlags(file);
            // the header page's own small mapping stays as it is: it is written, not probed
            assertTrue(flags.size() >= 2, "mappings of the slot file: " + flags);
            if (Runtime.version().feature() >= 22) {
                assertNull(notAdvised);
                assertEquals(1, flags.stream().filter(f -> f).count(), "random-read flags: " + flags);
            } else {
                assertTrue(notAdvised.contains("foreign function API"), notAdvised);
                assertEquals(List.of(), flags.stream().filter(f -> f).toList(), "random-read flags: " + flags);
            }
        } finally {
            store.close();
        }
        assertNull(store.adviseRandomAccess(), "a closed store has nothing to advise");
    }

    /** For each mapping of {@code file} in this process, whether its VmFlags carry {@code rr} (MADV_RANDOM). */
    private static List<Boolean> randomReadFlags(Path file) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
        List<Boolean> flags = new java.util.ArrayList<>();
        boolean inFile = false;
        for (String line : lines) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                inFile = line.endsWith(" " + file.toRealPath());
            } else if (inFile && line.startsWith("VmFlags:")) {
                flags.add(List.of(line.substring("VmFlags:".length()).trim().split(" "))
                        .contains("rr"));
            }
        }
        return flags;
    }
}
