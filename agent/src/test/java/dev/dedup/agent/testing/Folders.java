package dev.dedup.agent.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** The folders fixtures make for themselves, outside a test's {@code @TempDir}. */
final class Folders {

    private Folders() {}

    static Path create(String prefix) throws IOException {
        return Files.createTempDirectory(prefix);
    }

    /** Deletes {@code dir} and everything in it. */
    static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
