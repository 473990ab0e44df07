package dev.dedup.examples.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** One line per pipeline test run, printed and appended to {@code target/pipeline-report.txt} (docs/testing.md). */
public final class Report {

    public static void line(String text) {
        System.out.println("[pipeline] " + text);
        try {
            Files.writeString(
                    Path.of("target", "pipeline-report.txt"),
                    text + System.lineSeparator(),
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            System.out.println("(report not written: " + e + ")");
        }
    }

    private Report() {}
}
