package dev.dedup.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The sidecar's memory, quoted in several places, is one measurement: the newest memory run of {@code
 * docs/results/footprint.md} is the table of {@code docs/sidecars.md} ("The sidecar's footprint"), and every "N MiB
 * resident idle ... at most M MiB" that README.md, the docs and the manifests' comments write is that table's Redis
 * store. A new run changes the archive and the table; this names every quote left behind.
 */
class DocsFootprintFiguresTest {

    static final Path ROOT = DocsCodeBlocksTest.ROOT;

    /** "98 MiB resident idle, at most 181 MiB" and "98 MiB resident idle and at most 181 MiB". */
    private static final Pattern QUOTE = Pattern.compile("(\\d+) MiB resident idle,? (?:and )?at most (\\d+) MiB");

    record Memory(int idleMib, int peakMib) {}

    /** The embedded store's and the Redis store's memory in the newest run of the archive (its first memory table). */
    static List<Memory> newestRun() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("docs/results/footprint.md"), StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("| store | RSS idle")) {
                List<String> header = cells(lines.get(i));
                int idle = header.indexOf(header.stream()
                        .filter(h -> h.startsWith("RSS idle"))
                        .findFirst()
                        .get());
                int peak = header.indexOf("peak RSS");
                assertTrue(peak > 0, "footprint.md's memory table has no peak RSS column: " + lines.get(i));
                List<String> embedded = cells(lines.get(i + 2));
                List<String> redis = cells(lines.get(i + 3));
                assertEquals("embedded", embedded.get(0), lines.get(i + 2));
                assertEquals("redis", redis.get(0), lines.get(i + 3));
                return List.of(
                        new Memory(Integer.parseInt(embedded.get(idle)), Integer.parseInt(embedded.get(peak))),
                        new Memory(Integer.parseInt(redis.get(idle)), Integer.parseInt(redis.get(peak))));
            }
        }
        throw new AssertionError("docs/results/footprint.md has no memory table (| store | RSS idle ...)");
    }

    /** The same two stores in docs/sidecars.md's footprint table. */
    static List<Memory> referenceTable() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("docs/sidecars.md"), StandardCharsets.UTF_8);
        List<String> idle = row(lines, "| resident memory idle");
        List<String> peak = row(lines, "| the same: peak resident memory");
        return List.of(new Memory(mib(idle.get(1)), mib(peak.get(1))), new Memory(mib(idle.get(2)), mib(peak.get(2))));
    }

    @Test
    void theFootprintTable_isTheArchivesNewestRun() throws IOException {
        assertEquals(
                newestRun(),
                referenceTable(),
                "docs/sidecars.md's footprint table (embedded, Redis) against the newest run of"
                        + " docs/results/footprint.md");
    }

    @Test
    void everyQuoteOfTheSidecarsMemory_isTheTablesRedisStore() throws IOException {
        Memory redis = referenceTable().get(1);
        List<String> wrong = new ArrayList<>();
        int quotes = 0;
        for (Path file : quoting()) {
            // a sentence may wrap, in Markdown and in a YAML comment alike
            String text = Files.readString(file, StandardCharsets.UTF_8).replaceAll("\\s*\\n\\s*(#\\s*)?", " ");
            Matcher m = QUOTE.matcher(text);
            while (m.find()) {
                quotes++;
                Memory quoted = new Memory(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)));
                if (!quoted.equals(redis)) {
                    wrong.add(ROOT.relativize(file) + ": \"" + m.group() + "\"");
                }
            }
        }
        assertTrue(
                quotes >= 3, "quotes of the sidecar's memory found (README.md and two manifests at least): " + quotes);
        assertEquals(
                List.of(),
                wrong,
                "quotes that differ from docs/sidecars.md's Redis store (" + redis.idleMib() + " MiB idle, at most "
                        + redis.peakMib() + " MiB)");
    }

    /** README.md, the pages of docs/ (not the archive, whose runs keep their own figures), and deploy/kubernetes. */
    private static List<Path> quoting() throws IOException {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        try (Stream<Path> manifests = Files.walk(ROOT.resolve("deploy/kubernetes"))) {
            manifests.filter(Files::isRegularFile).sorted().forEach(files::add);
        }
        return files;
    }

    private static List<String> row(List<String> lines, String start) {
        return lines.stream()
                .filter(l -> l.startsWith(start))
                .findFirst()
                .map(DocsFootprintFiguresTest::cells)
                .orElseThrow(() -> new AssertionError("docs/sidecars.md has no row " + start));
    }

    private static List<String> cells(String row) {
        String inner = row.strip().substring(1, row.strip().length() - 1);
        return Arrays.stream(inner.split("\\|")).map(String::strip).toList();
    }

    private static int mib(String cell) {
        Matcher m = Pattern.compile("(\\d+) MiB").matcher(cell);
        assertTrue(m.matches(), "not a figure in MiB: " + cell);
        return Integer.parseInt(m.group(1));
    }
}
