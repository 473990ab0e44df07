package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every place outside the POMs that names the product's version names the POMs' one: the image tag in the manifests,
 * the Dockerfile, the scripts and the docs, the libraries' coordinates, POM snippets and jars the docs name, the
 * Python wheel, the version lines the docs quote from the agent, and the changelog's entry (the Python package's own
 * version, {@code dedup_client.__version__}, is held to the POMs' by its own suite, {@code test_version.py}). A
 * release changes them together (docs/releasing.md); this test names each one left behind.
 */
class VersionReferencesTest {

    static final Pattern IMAGE = Pattern.compile("dedup-agent:(\\d[\\w.+-]*)");
    /** An {@code images:} entry of a kustomization: {@code - name: dedup-agent} then {@code newTag: ...}. */
    static final Pattern AGENT_NEW_TAG = Pattern.compile("-\\s*name:\\s*dedup-agent\\s*\\n\\s*newTag:\\s*(\\S+)");

    static final Pattern CLIENT = Pattern.compile("dev\\.dedup:dedup-[a-z]+:(\\d[\\w.+-]*)");
    /** A library's coordinates in a POM snippet of the docs: {@code <artifactId>dedup-spark</artifactId>} then its version. */
    static final Pattern POM_SNIPPET =
            Pattern.compile("<artifactId>dedup-[a-z]+</artifactId>\\s*<version>(\\d[\\w.+-]*)</version>");
    /** A built artifact the docs name: {@code dedup-spark-X.Y.Z.jar}, the Python wheel {@code dedup_client-X.Y.Z-py3...}. */
    static final Pattern ARTIFACT = Pattern.compile("dedup[-_][a-z]+-(\\d+\\.\\d+\\.\\d+[\\w.+]*?)(?:\\.jar|-py3)");
    /** What the agent prints, as the docs quote it: {@code dedup-agent X.Y.Z}, {@code "version":"X.Y.Z"}, {@code version="X.Y.Z"}. */
    static final Pattern PRINTED =
            Pattern.compile("(?:dedup-agent |\"version\":\"|version=\")(\\d+\\.\\d+\\.\\d+[\\w.+-]*?)(?=[\"\\s`]|$)");

    @Test
    void imageTagsAndClientCoordinatesNameThisVersion() throws IOException {
        List<String> wrong = new ArrayList<>();
        int seen = 0;
        for (Path file : textFiles()) {
            String text = Files.readString(file);
            for (Pattern p : List.of(IMAGE, CLIENT, POM_SNIPPET, ARTIFACT, PRINTED)) {
                Matcher m = p.matcher(text);
                while (m.find()) {
                    seen++;
                    if (!m.group(1).equals(Tools.version())) {
                        wrong.add(Tools.ROOT.relativize(file) + ": " + m.group());
                    }
                }
            }
        }
        assertTrue(seen >= 20, "image tags, coordinates, artifacts and printed versions found: " + seen);
        assertEquals(List.of(), wrong, "not version " + Tools.version());
    }

    @Test
    void kustomizationsTagTheAgentWithThisVersion() throws IOException {
        List<String> tags = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Tools.KUBERNETES)) {
            for (Path k : (Iterable<Path>)
                    files.filter(f -> f.getFileName().toString().equals("kustomization.yaml"))::iterator) {
                for (String tag : find(AGENT_NEW_TAG, k)) {
                    tags.add(Tools.ROOT.relativize(k) + ": newTag " + tag);
                }
            }
        }
        assertFalse(tags.isEmpty(), "no kustomization sets the dedup-agent image's tag");
        for (String tag : tags) {
            assertTrue(tag.endsWith(" " + Tools.version()), tag + ", not " + Tools.version());
        }
    }

    @Test
    void theChangelogHasAnEntryForThisVersion() throws IOException {
        List<String> entries = find(Pattern.compile("(?m)^## \\[([^\\]]+)\\]"), Tools.ROOT.resolve("CHANGELOG.md"));
        assertFalse(entries.isEmpty(), "CHANGELOG.md: no ## [version] entry");
        assertTrue(
                entries.contains(Tools.version()),
                "CHANGELOG.md: no entry ## [" + Tools.version() + "] among " + entries);
    }

    private static List<String> find(Pattern p, Path file) throws IOException {
        List<String> found = new ArrayList<>();
        Matcher m = p.matcher(Files.readString(file));
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }

    /** The README, the docs (not their archive of dated runs), deploy/, .ci/ and the load test's scripts. */
    private static List<Path> textFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(Tools.ROOT.resolve("README.md"));
        for (String dir : List.of("docs", "deploy", ".ci", "loadtest")) {
            try (Stream<Path> walk = Files.walk(Tools.ROOT.resolve(dir))) {
                walk.filter(Files::isRegularFile)
                        .filter(f -> !f.startsWith(Tools.ROOT.resolve("docs/results")))
                        .filter(f -> !f.toString().contains("/target/")
                                && !f.toString().contains("/src/"))
                        .forEach(files::add);
            }
        }
        return files;
    }

    private static String readString(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
