package dev.dedup.agent.store.embedded;

import static dev.dedup.agent.store.embedded.TestBatches.batch;
import static dev.dedup.agent.store.embedded.TestBatches.codes;
import static dev.dedup.agent.store.embedded.TestBatches.join;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.embedded.disk.DataDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The data directory on this machine's file system: modes, owners and links as the kernel reports them. */
class DataDirectoryTest {

    private static final int NOBODY = 65534;

    @TempDir
    Path tmp;

    private Path data() {
        return tmp.resolve("data");
    }

    private EmbeddedStore open() {
        return new EmbeddedStore(new EmbeddedStoreOptions(data(), 4096, 8), () -> 1_700_000_000_000L);
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    private static Set<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString())
                    .collect(java.util.stream.Collectors.toCollection(TreeSet::new));
        }
    }

    /** A file outside the data directory, which a link in it points at. */
    private Path precious() throws IOException {
        Path target = tmp.resolve("precious");
        Files.writeString(target, "not the agent's");
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
        return target;
    }

    private static void assertUntouched(Path target) throws IOException {
        assertEquals("not the agent's", Files.readString(target));
        assertEquals("rw-r--r--", mode(target));
    }

    private static long processUid() throws IOException {
        return DataDirectory.agentIds()[0];
    }

    private static long id(String flag) throws IOException, InterruptedException {
        Process id = new ProcessBuilder("id", flag).redirectErrorStream(true).start();
        String out = new String(id.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
        assertEquals(0, id.waitFor(), out);
        return Long.parseLong(out);
    }

    @Test
    void theAgentsUserAndGroup_areTheProcesssEffectiveOnes() throws Exception {
        assertArrayEquals(new long[] {id("-u"), id("-g")}, DataDirectory.agentIds());
    }

    @Test
    void aFreshDirectoryIs0700_andEveryFileInIt0600() throws IOException {
        try (EmbeddedStore store = open()) {
            assertArrayEquals(codes(0), join(store.claim(batch("ns", "w", "a"), ClaimPolicy.window(60_000))));
        }
        assertEquals("rwx------", mode(data()));
        assertEquals(Set.of("agent.lock", "claims.slots", "ranges.log"), names(data()));
        for (String name : names(data())) {
            assertEquals("rw-------", mode(data().resolve(name)), name);
        }
    }

    @Test
    void filesLeftWithAWiderMode_areNarrowedTo0600() throws IOException {
        open().close();
        for (String name : names(data())) {
            Files.setPosixFilePermissions(data().resolve(name), PosixFilePermissions.fromString("rw-rw-r--"));
        }
        open().close();
        for (String name : names(data())) {
            assertEquals("rw-------", mode(data().resolve(name)), name);
        }
    }

    @Test
    void anExistingDirectoryOfTheAgentsReadableByOthers_isAccepted() throws IOException {
        Files.createDirectory(
                data(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(data(), PosixFilePermissions.fromString("rwxr-xr-x"));
        open().close();
        assertEquals("rwxr-xr-x", mode(data()), "left as it was");
        for (String name : names(data())) {
            assertEquals("rw-------", mode(data().resolve(name)), name);
        }
    }

    /** The store's own files: a link there stops the start, and what it points at is left alone. */
    @ParameterizedTest
    @ValueSource(strings = {"agent.lock", "claims.slots", "ranges.log"})
    void aLinkAtAFileOfTheStore_isNotFollowed_andStopsTheStartNamingIt(String name) throws IOException {
        open().close(); // an existing store: each of its files is opened at start
        Path target = precious();
        Path link = data().resolve(name);
        Files.delete(link);
        Files.createSymbolicLink(link, target);

        IllegalStateException e = assertThrows(IllegalStateException.class, this::open);
        assertTrue(e.getMessage().contains(link + " is a symbolic link"), e.getMessage());
        assertTrue(e.getMessage().contains("remove the link"), e.getMessage());
        assertUntouched(target);
        assertTrue(Files.isSymbolicLink(link), "the link is the operator's to remove");
    }

    @ParameterizedTest
    @ValueSource(strings = {"agent.lock", "claims.slots", "ranges.log"})
    void aDanglingLinkAtAFileOfTheStore_createsNothingWhereItPoints(String name) throws IOException {
        Files.createDirectory(
                data(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path missing = tmp.resolve("missing");
        Files.createSymbolicLink(data().resolve(name), missing);

        IllegalStateException e = assertThrows(IllegalStateException.class, this::open);
        assertTrue(e.getMessage().contains(data().resolve(name) + " is a symbolic link"), e.getMessage());
        assertFalse(Files.exists(missing, LinkOption.NOFOLLOW_LINKS), "created through the link");
    }

    /** The temporary files: a link there (left by whoever) is removed, not followed, and the start goes on. */
    @Test
    void aLinkAtTheRangeLogsTemporaryName_isReplaced_andItsTargetUnchanged() throws IOException {
        try (EmbeddedStore store = open()) {
            join(store.claim(batch("ns", "w", "a"), ClaimPolicy.window(60_000)));
        }
        Path target = precious();
        Path link = data().resolve("ranges.log.tmp");
        Files.createSymbolicLink(link, target);

        try (EmbeddedStore store = open()) { // the range log is rewritten through its temporary name at start
            assertArrayEquals(codes(1), join(store.claim(batch("ns", "w", "a"), ClaimPolicy.window(60_000))));
        }
        assertUntouched(target);
        assertFalse(Files.exists(link, LinkOption.NOFOLLOW_LINKS));
        assertEquals("rw-------", mode(data().resolve("ranges.log")));
        assertFalse(Files.isSymbolicLink(data().resolve("ranges.log")));
    }

    @Test
    void aLinkAtTheSlotFilesTemporaryName_isReplaced_andItsTargetUnchanged() throws IOException {
        Files.createDirectory(
                data(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path target = precious();
        Path link = data().resolve("claims.slots.tmp");
        Files.createSymbolicLink(link, target);

        open().close(); // a new slot file is written under its temporary name, then renamed
        assertUntouched(target);
        assertEquals(Set.of("agent.lock", "claims.slots", "ranges.log"), names(data()));
        assertEquals("rw-------", mode(data().resolve("claims.slots")));
    }

    @Test
    void aDataDirectoryThatIsALink_isRefused_namingWhereItPoints() throws IOException {
        Path real = Files.createDirectory(tmp.resolve("real"));
        Files.createSymbolicLink(data(), real);

        ConfigException e = assertThrows(ConfigException.class, this::open);
        assertEquals(
                "data-dir: " + data() + " is a symbolic link to " + real + "; the agent follows none to its store: give"
                        + " --data-dir the directory it points to",
                e.getMessage());
        assertEquals(Set.of(), names(real));
    }

    @Test
    void aFileForADirectory_isRefused() throws IOException {
        Files.writeString(data(), "");
        ConfigException e = assertThrows(ConfigException.class, this::open);
        assertTrue(e.getMessage().startsWith("data-dir: " + data() + " is not a directory"), e.getMessage());
    }

    @Test
    void aDirectoryEveryUserMayWrite_isRefused_namingItAndTheFix() throws IOException {
        Files.createDirectory(data());
        Files.setAttribute(data(), "unix:mode", 01777); // sticky, as /tmp: others still plant files
        ConfigException e = assertThrows(ConfigException.class, this::open);
        assertTrue(e.getMessage().startsWith("data-dir: " + data() + " ("), e.getMessage());
        assertTrue(
                e.getMessage().contains("mode 1777) may be written by every user: run chmod o-w " + data()),
                e.getMessage());
        assertEquals(Set.of(), names(data()), "nothing made in it");
    }

    @Test
    void aDirectoryOfAnotherUser_isRefused_namingItsOwnerAndTheFix() throws IOException {
        assumeTrue(processUid() == 0, "giving a directory away needs root");
        Files.createDirectory(
                data(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.setAttribute(data(), "unix:uid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        ConfigException e = assertThrows(ConfigException.class, this::open);
        assertTrue(e.getMessage().startsWith("data-dir: " + data() + " (owner uid 65534, "), e.getMessage());
        assertTrue(
                e.getMessage().contains("belongs to another user than the agent's (uid 0): run chown 0 " + data()),
                e.getMessage());
        assertEquals(Set.of(), names(data()), "nothing made in it");
    }

    @Test
    void aGroupWritableDirectory_isAcceptedOnlyForTheAgentsOwnGroup() throws IOException {
        assumeTrue(processUid() == 0, "changing a directory's group at will needs root");
        long gid = DataDirectory.agentIds()[1];
        Files.createDirectory(data());
        Files.setAttribute(data(), "unix:mode", 02775); // a Kubernetes volume with fsGroup
        Files.setAttribute(data(), "unix:gid", NOBODY, LinkOption.NOFOLLOW_LINKS);
        ConfigException e = assertThrows(ConfigException.class, this::open);
        assertTrue(e.getMessage().contains("may be written by group 65534, not the agent's group"), e.getMessage());

        Files.setAttribute(data(), "unix:gid", (int) gid, LinkOption.NOFOLLOW_LINKS);
        open().close();
        for (String name : List.of("agent.lock", "claims.slots", "ranges.log")) {
            assertEquals("rw-------", mode(data().resolve(name)), name);
        }
    }
}
