package dev.dedup.agent.store.embedded.disk;

import dev.dedup.agent.config.value.ConfigException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The data directory and the files the embedded store keeps there, made so that only the agent's user reads them and
 * opened so that no link sends a write elsewhere.
 *
 * <p>A missing directory is made 0700 and every file 0600, by the mode given to {@code mkdir} and {@code open}, so
 * nothing exists for a moment with a wider mode. An existing directory must pass {@link DirectoryRule}, else the start
 * stops with a {@link ConfigException}. A file a former run left with a wider mode (or a Kubernetes volume's {@code
 * fsGroup} widened) is narrowed to 0600 when opened.
 *
 * <p>Nothing in the directory is opened through a symbolic link ({@link LinkOption#NOFOLLOW_LINKS}): a link named as a
 * file of the store's stops the start, naming it; one at a temporary name is removed (the link, not what it points
 * at) before the file is created there, with {@code CREATE_NEW}. The directory itself must not be a link either:
 * {@code --data-dir} names the directory.
 *
 * <p>Where the file system has no POSIX attributes (Windows), the directory and the files get their parent's
 * defaults, and the directory is not checked. On Linux every file system reports a mode and an owner; where it keeps
 * none (vfat, SMB), they are the mount's options, and the rule applies to those.
 */
public final class DataDirectory {

    private static final Set<PosixFilePermission> FILE_MODE =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    private static final Set<PosixFilePermission> DIRECTORY_MODE = EnumSet.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private DataDirectory() {}

    /**
     * Makes {@code dir} (0700, its missing parents with the defaults) unless it exists, then checks it.
     *
     * @throws ConfigException naming {@code --data-dir} when {@code dir} is a link, not a directory, or fails {@link
     *                         DirectoryRule}
     * @throws IllegalStateException when it cannot be made or read
     */
    public static void prepare(Path dir) {
        try {
            if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
                Path parent = dir.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                try {
                    Files.createDirectory(dir, attributes(dir, DIRECTORY_MODE));
                } catch (FileAlreadyExistsException raced) {
                    // made meanwhile by someone else: checked below like any existing directory
                }
            }
            check(dir);
        } catch (IOException e) {
            throw new IllegalStateException("data-dir: cannot make or read " + dir + ": " + e, e);
        }
    }

    private static void check(Path dir) throws IOException {
        if (Files.isSymbolicLink(dir)) {
            throw new ConfigException("data-dir: " + dir + " is a symbolic link to " + Files.readSymbolicLink(dir)
                    + "; the agent follows none to its store: give --data-dir the directory it points to");
        }
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            throw new ConfigException("data-dir: " + dir + " is not a directory; give --data-dir a directory, which"
                    + " the agent creates if missing");
        }
        if (!posix(dir)) {
            return;
        }
        Map<String, Object> a = Files.readAttributes(dir, "unix:uid,gid,mode", LinkOption.NOFOLLOW_LINKS);
        long[] agent = agentIds();
        String refusal = DirectoryRule.refusal(
                dir, (Integer) a.get("uid"), (Integer) a.get("gid"), (Integer) a.get("mode"), agent[0], agent[1]);
        if (refusal != null) {
            throw new ConfigException(refusal);
        }
    }

    /**
     * Opens {@code file} of the data directory with {@code options}, never through a link; a file it creates is 0600,
     * and an existing one is narrowed to 0600.
     *
     * @throws IllegalStateException naming the file when it is a symbolic link
     */
    public static FileChannel open(Path file, OpenOption... options) throws IOException {
        Set<OpenOption> noFollow = new HashSet<>(List.of(options));
        noFollow.add(LinkOption.NOFOLLOW_LINKS);
        FileChannel channel;
        try {
            channel = FileChannel.open(file, noFollow, attributes(file, FILE_MODE));
        } catch (IOException e) { // ELOOP, which the JDK reports as a bare IOException
            if (Files.isSymbolicLink(file)) {
                throw new IllegalStateException(symbolicLink(file), e);
            }
            throw e;
        }
        try {
            narrow(file);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    /**
     * Creates {@code file} anew, 0600, for writing: whatever has its name is removed first (a link, not what it
     * points at). For a temporary file, which a crash may have left behind.
     */
    public static FileChannel createTemporary(Path file) throws IOException {
        Files.deleteIfExists(file);
        return FileChannel.open(
                file,
                Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
                attributes(file, FILE_MODE));
    }

    /** The start's error for a link at the name of one of the store's files. */
    static String symbolicLink(Path file) {
        return "embedded store " + file + " is a symbolic link; the agent opens nothing in its data directory"
                + " through one: remove the link (its target is untouched), and move the file there if it is the store's";
    }

    private static void narrow(Path file) throws IOException {
        PosixFileAttributeView view =
                Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
        if (view != null && !FILE_MODE.containsAll(view.readAttributes().permissions())) {
            view.setPermissions(FILE_MODE);
        }
    }

    private static boolean posix(Path path) {
        return path.getFileSystem().supportedFileAttributeViews().contains("unix");
    }

    private static FileAttribute<?>[] attributes(Path path, Set<PosixFilePermission> mode) {
        return posix(path)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(mode)}
                : new FileAttribute<?>[0];
    }

    /**
     * The agent's effective user and group. On Linux from {@code /proc/self/status}; elsewhere from the JDK's {@code
     * UnixSystem}, which knows them only for a user with a passwd entry: without one (a container's numeric user) it
     * says 0, root, and is not believed.
     */
    public static long[] agentIds() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (Files.isReadable(status)) {
            long uid = -1;
            long gid = -1;
            for (String line : Files.readAllLines(status)) {
                // "Uid:\t<real>\t<effective>\t<saved>\t<file system>"
                if (line.startsWith("Uid:")) {
                    uid = Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
                } else if (line.startsWith("Gid:")) {
                    gid = Long.parseLong(line.substring(4).trim().split("\\s+")[1]);
                }
            }
            if (uid >= 0 && gid >= 0) {
                return new long[] {uid, gid};
            }
        }
        try {
            com.sun.security.auth.module.UnixSystem system = new com.sun.security.auth.module.UnixSystem();
            if (system.getUsername() != null) {
                return new long[] {system.getUid(), system.getGid()};
            }
        } catch (LinkageError e) {
            // without the module jdk.security.auth: as unknown
        }
        throw new IllegalStateException("data-dir: cannot tell the agent's user and group (no /proc/self/status, and"
                + " the user has no passwd entry), so cannot check who may write the data directory");
    }
}
