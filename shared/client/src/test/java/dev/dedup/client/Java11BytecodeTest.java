package dev.dedup.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.wire.Item;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The client and the one artifact it needs at run time, {@code dedup-wire}, load on Java 11: every class file they
 * are made of has a major version of at most 55. Reads the classes where this test's class loader found them (the
 * modules' {@code target/classes} in the build, or their jars).
 */
class Java11BytecodeTest {

    /** The class file major version of Java 11. */
    static final int JAVA_11 = 55;

    @Test
    void everyClassOfTheClientIsJava11Bytecode() throws Exception {
        assertAtMostJava11(majorVersions(location(DedupClient.class)), "dedup-client");
    }

    @Test
    void everyClassOfDedupWireIsJava11Bytecode() throws Exception {
        assertAtMostJava11(majorVersions(location(Item.class)), "dedup-wire");
    }

    @Test
    void aJava17ClassIsRecognised() throws Exception {
        // This test's own class is compiled for Java 17: the reading above would see a class that is not Java 11.
        try (InputStream in = Java11BytecodeTest.class.getResourceAsStream("Java11BytecodeTest.class")) {
            assertEquals(61, majorVersion(in));
        }
    }

    private static void assertAtMostJava11(TreeMap<String, Integer> versions, String artifact) {
        assertTrue(versions.size() > 3, artifact + ": classes found: " + versions.keySet());
        List<String> above = new ArrayList<>();
        versions.forEach((name, major) -> {
            if (major > JAVA_11) {
                above.add(name + " (" + major + ")");
            }
        });
        assertTrue(above.isEmpty(), artifact + " must run on Java 11 (class file version 55); above it: " + above);
    }

    private static Path location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Class file name → major version, for a directory of classes or a jar. */
    private static TreeMap<String, Integer> majorVersions(Path where) throws IOException {
        TreeMap<String, Integer> versions = new TreeMap<>();
        if (Files.isDirectory(where)) {
            try (Stream<Path> files = Files.walk(where)) {
                for (Path p : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                    try (InputStream in = Files.newInputStream(p)) {
                        versions.put(where.relativize(p).toString(), majorVersion(in));
                    }
                }
            }
        } else {
            try (JarFile jar = new JarFile(where.toFile())) {
                for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
                    JarEntry entry = e.nextElement();
                    if (entry.getName().endsWith(".class")) {
                        try (InputStream in = jar.getInputStream(entry)) {
                            versions.put(entry.getName(), majorVersion(in));
                        }
                    }
                }
            }
        }
        return versions;
    }

    /** A class file starts {@code u4 magic, u2 minor_version, u2 major_version}. */
    private static int majorVersion(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        int magic = in.readInt();
        if (magic != 0xCAFEBABE) {
            throw new IOException("not a class file (magic " + Integer.toHexString(magic) + ")");
        }
        in.readUnsignedShort();
        return in.readUnsignedShort();
    }
}
