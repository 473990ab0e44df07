package dev.dedup.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every link between the pages leads somewhere: each relative link of README.md, docs/ (its archive of runs
 * included) and the READMEs under deploy/ and shared/python names a file that exists and, after a {@code #}, a
 * heading of that page, as GitHub makes its anchors; and each {@code docs/<page>.md#<anchor>} written in the
 * manifests, the scripts and the agent's sources (the rules' runbook URLs, error lines, comments) names a page and
 * a heading that exist. A renamed heading or a moved page fails here, naming every place that still points at it.
 */
class DocsLinksTest {

    static final Path ROOT = DocsCodeBlocksTest.ROOT;

    /** {@code [text](target)}; {@code ![alt](image)} alike. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    /** {@code docs/redis.md#redis-cluster}, as the manifests and the agent's messages write a page. */
    private static final Pattern DOCS_REFERENCE = Pattern.compile("(?<![\\w/.-])docs/([\\w.-]+\\.md)(#[\\w-]+)?");

    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");

    /** The Markdown pages whose links are checked. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md")));
        pages.addAll(files(ROOT.resolve("docs"), p -> p.toString().endsWith(".md")));
        pages.addAll(
                files(ROOT.resolve("deploy"), p -> p.getFileName().toString().startsWith("README")));
        pages.add(ROOT.resolve("shared/python/README.md"));
        return pages;
    }

    /** Text files outside the pages that name pages of docs/: the manifests, the scripts, the agent's sources. */
    static List<Path> referrers() throws IOException {
        List<Path> files = new ArrayList<>();
        files.addAll(files(ROOT.resolve("deploy"), p -> !p.toString().endsWith(".md")));
        files.addAll(files(
                ROOT.resolve("loadtest"),
                p -> p.toString().endsWith(".sh") || p.toString().endsWith(".py")));
        files.addAll(files(ROOT.resolve("agent/src/main"), p -> true));
        files.addAll(files(ROOT.resolve(".ci"), p -> true));
        return files;
    }

    private static List<Path> files(Path dir, java.util.function.Predicate<Path> wanted) throws IOException {
        try (Stream<Path> walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile)
                    .filter(p ->
                            !p.toString().contains("/target/") && !p.toString().contains("/__pycache__/"))
                    .filter(wanted)
                    .sorted()
                    .toList();
        }
    }

    /** The lines of a page outside its fenced code blocks; blank where a fence or its code was. */
    static List<String> prose(Path page) throws IOException {
        List<String> lines = new ArrayList<>(Files.readAllLines(page, StandardCharsets.UTF_8));
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            boolean fence = lines.get(i).strip().startsWith("```");
            if (fence || fenced) {
                lines.set(i, "");
            }
            if (fence) {
                fenced = !fenced;
            }
        }
        return lines;
    }

    /**
     * GitHub's anchor of a heading: its text without links' targets, lower case, every character but letters,
     * digits, spaces, {@code -} and {@code _} dropped, spaces turned to {@code -}.
     */
    static String anchor(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
        return text.strip()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}\\p{M} _-]", "")
                .replace(' ', '-');
    }

    /** The anchors of a page's headings; a repeated heading's second anchor ends with {@code -1}, as on GitHub. */
    static Set<String> anchors(Path page) throws IOException {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(page)) {
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String a = anchor(h.group(2));
                int n = seen.merge(a, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? a : a + "-" + n);
            }
        }
        return anchors;
    }

    /** What is wrong with {@code target} (a path and maybe {@code #anchor}) resolved from {@code base}, or null. */
    private static String broken(Path base, String target, Map<Path, Set<String>> cache) throws IOException {
        int hash = target.indexOf('#');
        String path = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : target.substring(hash + 1);
        Path file = path.isEmpty() ? base : base.getParent().resolve(path).normalize();
        if (!Files.exists(file)) {
            return "no file " + ROOT.relativize(file);
        }
        if (fragment == null) {
            return null;
        }
        if (!file.toString().endsWith(".md")) {
            return "#" + fragment + " on " + ROOT.relativize(file) + ", which is not a page";
        }
        Set<String> anchors = cache.computeIfAbsent(file, f -> {
            try {
                return anchors(f);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        return anchors.contains(fragment) ? null : ROOT.relativize(file) + " has no heading #" + fragment;
    }

    @Test
    void everyRelativeLinkOfThePages_namesAFileAndAHeadingThatExist() throws IOException {
        Map<Path, Set<String>> cache = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages()) {
            List<String> lines = prose(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("[a-z][a-z0-9+.-]*:.*")) {
                        continue; // https:, mailto:: not this repository's
                    }
                    links++;
                    String why = broken(page, target, cache);
                    if (why != null) {
                        broken.add(ROOT.relativize(page) + ":" + (i + 1) + ": (" + target + ") " + why);
                    }
                }
            }
        }
        assertTrue(links > 300, "relative links found: " + links);
        assertEquals(List.of(), broken, "links that lead nowhere");
    }

    @Test
    void everyDocsPageNamedOutsideThePages_existsWithTheHeadingNamed() throws IOException {
        Map<Path, Set<String>> cache = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int references = 0;
        for (Path file : referrers()) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (java.nio.charset.MalformedInputException binary) {
                continue;
            }
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = DOCS_REFERENCE.matcher(lines.get(i));
                while (m.find()) {
                    references++;
                    String target = m.group(1) + (m.group(2) == null ? "" : m.group(2));
                    String why = broken(ROOT.resolve("docs/README.md"), target, cache);
                    if (why != null) {
                        broken.add(ROOT.relativize(file) + ":" + (i + 1) + ": docs/" + target + ": " + why);
                    }
                }
            }
        }
        assertTrue(references > 40, "references to docs/ found: " + references);
        assertEquals(List.of(), broken, "references to pages or headings that do not exist");
    }

    @Test
    void anchorsAreGithubs() {
        assertEquals("the-sidecars-footprint", anchor("The sidecar's footprint"));
        assertEquals(
                "ordered-streams-post-v1rangescheck-and-post-v1rangescommit",
                anchor("Ordered streams: POST /v1/ranges/check and POST /v1/ranges/commit"));
        assertEquals("amazon-elasticache-redis-oss-valkey", anchor("Amazon ElastiCache (Redis OSS, Valkey)"));
        assertEquals("what-exactly-once-needs-from-the-sink", anchor("What \"exactly once\" needs from the sink"));
        assertEquals("memory-and-planning-for-it", anchor("Memory, and planning for it"));
    }
}
