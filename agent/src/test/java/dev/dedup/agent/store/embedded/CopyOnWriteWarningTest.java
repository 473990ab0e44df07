package dev.dedup.agent.store.embedded;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The agent warns at start when its slot file is on a file system where a full disk faults it. */
class CopyOnWriteWarningTest {

    private static final Path FILE = Path.of("/data/claims.slots");

    @Test
    void copyOnWriteFileSystems_areNamedWithWhatToDo() {
        for (String type : new String[] {"btrfs", "zfs", "bcachefs", "BTRFS"}) {
            String warning = SlotFile.copyOnWriteWarning(FILE, type);
            assertTrue(warning != null && warning.contains(FILE.toString()), type + ": " + warning);
            assertTrue(warning.contains("copy-on-write") && warning.contains("--data-dir"), warning);
        }
    }

    @Test
    void fileSystemsThatWriteInPlace_needNoWarning() {
        for (String type : new String[] {"ext4", "xfs", "tmpfs", "overlay", "nfs", "ext3"}) {
            assertNull(SlotFile.copyOnWriteWarning(FILE, type), type);
        }
    }
}
