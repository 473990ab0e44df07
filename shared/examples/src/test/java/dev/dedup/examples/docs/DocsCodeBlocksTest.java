package dev.dedup.examples.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The code in README.md and docs/ cannot drift from the libraries: every {@code java} block is found, token for
 * token (whitespace aside, so that the formatter may wrap the copy), in a source file the build compiles; every {@code scala} block compiles with the
 * Scala compiler against this module's classpath (the libraries and Spark 4); and every {@code python} block of the
 * README is found in a page whose blocks the Python suite runs ({@code docs/python.md}, {@code
 * shared/python/README.md}: its {@code test_docs.py}); and a block tagged otherwise is one nothing compiles
 * (commands, output, data), by a tag named here.
 */
class DocsCodeBlocksTest {

    /** The repository's root, from this module's directory (shared/examples). */
    static final Path ROOT = Path.of("").toAbsolutePath().resolve("../..").normalize();

    record Block(Path page, int line, String language, List<String> lines) {
        @Override
        public String toString() {
            return ROOT.relativize(page) + ":" + line;
        }
    }

    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    static List<Block> blocks(String language) throws IOException {
        List<Block> blocks = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).strip().equals("```" + language)) {
                    int start = i + 1;
                    int end = start;
                    while (!lines.get(end).strip().equals("```")) {
                        end++;
                    }
                    blocks.add(new Block(page, start, language, lines.subList(start, end)));
                    i = end;
                }
            }
        }
        return blocks;
    }

    /** The languages whose blocks a test here (or the Python suite) checks. */
    static final Set<String> CHECKED = Set.of("java", "scala", "python");

    /** What the docs show but nothing compiles: commands, output, data and build files. */
    static final Set<String> SHOWN = Set.of("bash", "text", "json", "properties", "xml", "yaml");

    private static List<String> significant(List<String> lines) {
        return lines.stream().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.toList());
    }

    /** Text without any whitespace: a block and its compiled copy match however the formatter wrapped the copy. */
    private static String squeezed(List<String> lines) {
        return String.join("", lines).replaceAll("\\s+", "");
    }

    /** The code of a Java source: without its comments, where a doc block's copy would compile to nothing. */
    static List<String> withoutComments(List<String> lines) {
        String code = String.join("\n", lines).replaceAll("(?s)/\\*.*?\\*/", "");
        return code.lines().filter(l -> !l.strip().startsWith("//")).collect(Collectors.toList());
    }

    /** Every Java source of the shared modules (the libraries, the client, the examples and their tests), squeezed. */
    private static List<String> javaSources() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT.resolve("shared"))) {
            return files.filter(
                            p -> p.toString().endsWith(".java") && p.toString().contains("/src/"))
                    .map(p -> {
                        try {
                            return squeezed(withoutComments(Files.readAllLines(p, StandardCharsets.UTF_8)));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    })
                    .collect(Collectors.toList());
        }
    }

    @Test
    void everyJavaBlockOfTheDocs_isInACompiledSource() throws IOException {
        List<String> sources = javaSources();
        List<Block> javaBlocks = blocks("java");
        assertTrue(javaBlocks.size() >= 2, "the docs' Java blocks were found: " + javaBlocks);
        List<String> missing = new ArrayList<>();
        for (Block b : javaBlocks) {
            String wanted = squeezed(withoutComments(b.lines()));
            if (wanted.isEmpty() || sources.stream().noneMatch(s -> s.contains(wanted))) {
                missing.add(b + " (" + significant(b.lines()).get(0) + " ...)");
            }
        }
        assertTrue(
                missing.isEmpty(),
                "Java blocks of the docs found in no compiled source (put them, line for line, in a class under"
                        + " shared/*/src, e.g. shared/examples/src/test/java/dev/dedup/examples/docs): " + missing);
    }

    @Test
    void everyFencedBlock_isOfALanguageKnownHere() throws IOException {
        List<String> unknown = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            boolean inBlock = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i).strip();
                if (!line.startsWith("```")) {
                    continue;
                }
                String tag = line.substring(3);
                if (!inBlock && !CHECKED.contains(tag) && !SHOWN.contains(tag)) {
                    unknown.add(ROOT.relativize(page) + ":" + (i + 1) + " ```" + tag);
                }
                inBlock = !inBlock;
            }
        }
        assertTrue(
                unknown.isEmpty(),
                "blocks tagged with a language no test knows (a code block must be one of " + CHECKED
                        + ", checked here, or one of " + SHOWN + "): " + unknown);
    }

    @Test
    void aDocBlockInAComment_isNotCode() {
        List<String> source = List.of("/** e.g.", " * loop.run();", " */", "// loop.run();", "int n = 1; // n");
        assertTrue(!squeezed(withoutComments(source)).contains("loop.run();"));
        assertTrue(squeezed(withoutComments(source)).contains("intn=1;//n"));
    }

    @Test
    void everyPythonBlockOfTheDocs_isInAPageThePythonSuiteRuns() throws IOException {
        List<List<String>> tested = new ArrayList<>();
        for (Path page : List.of(ROOT.resolve("docs/python.md"), ROOT.resolve("shared/python/README.md"))) {
            tested.add(significant(Files.readAllLines(page, StandardCharsets.UTF_8)));
        }
        List<String> missing = new ArrayList<>();
        for (Block b : blocks("python")) {
            if (b.page().equals(ROOT.resolve("docs/python.md"))) {
                continue;
            }
            List<String> wanted = significant(b.lines());
            if (tested.stream().noneMatch(s -> Collections.indexOfSubList(s, wanted) >= 0)) {
                missing.add(b + " (" + wanted.get(0) + " ...)");
            }
        }
        assertTrue(missing.isEmpty(), "Python blocks of the docs found in no page the Python suite runs: " + missing);
    }

    @Test
    void everyScalaBlockOfTheDocs_compiles(@TempDir Path out) throws IOException {
        List<Block> scalaBlocks = blocks("scala");
        assertTrue(!scalaBlocks.isEmpty(), "the docs' Scala blocks were found");
        List<String> failed = new ArrayList<>();
        for (int i = 0; i < scalaBlocks.size(); i++) {
            Block b = scalaBlocks.get(i);
            Path source = out.resolve("Snippet" + i + ".scala");
            // a block is the body of a foreachBatch function: batch is the micro-batch
            Files.writeString(
                    source,
                    "import dev.dedup.spark.DedupTransform\n"
                            + "import org.apache.spark.sql.functions._\n"
                            + "object Snippet" + i + " {\n"
                            + "  def body(batch: org.apache.spark.sql.DataFrame): Unit = {\n"
                            + String.join("\n", b.lines()) + "\n"
                            + "  }\n}\n");
            Path classes = Files.createDirectories(out.resolve("classes" + i));
            boolean ok = scala.tools.nsc.Main.process(
                    new String[] {"-classpath", classpath(), "-d", classes.toString(), "-nowarn", source.toString()});
            if (!ok) {
                failed.add(b.toString());
            }
        }
        assertTrue(failed.isEmpty(), "Scala blocks of the docs that do not compile (errors above): " + failed);
    }

    /** This module's test classpath, as the build wrote it, and its own classes. */
    private static String classpath() throws IOException {
        Path module = ROOT.resolve("shared/examples");
        return Files.readString(module.resolve("target/test-classpath.txt")).strip()
                + java.io.File.pathSeparator
                + module.resolve("target/classes");
    }
}
