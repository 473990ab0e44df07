package dev.dedup.agent.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The runbook of {@code DedupStoreErrors} in docs/operations.md has a row for every kind of store failure the agent
 * counts in {@code dedup_store_errors_total}, and none for a kind it does not: an operator who reads a kind on a
 * dashboard finds what to do.
 */
class FailureKindDocTest {

    private static final String PAGE = "docs/operations.md";
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z_]+)` \\|");

    @Test
    void theStoreErrorsRunbook_hasARowPerFailureKind() throws IOException {
        List<String> lines = Files.readAllLines(page(), StandardCharsets.UTF_8);
        int section = lines.indexOf("## DedupStoreErrors");
        assertTrue(section >= 0, PAGE + " has no section ## DedupStoreErrors");
        Set<String> rows = new TreeSet<>();
        for (int i = section + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
            Matcher m = ROW.matcher(lines.get(i));
            if (m.find()) {
                rows.add(m.group(1));
            }
        }
        Set<String> kinds = Arrays.stream(FailureKind.values())
                .map(FailureKind::tag)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(kinds, rows, PAGE + ", DedupStoreErrors: one row per FailureKind, by its tag");
    }

    private static Path page() {
        Path here = Path.of("").toAbsolutePath();
        for (Path candidate : List.of(here.resolve("../" + PAGE).normalize(), here.resolve(PAGE))) {
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        throw new AssertionError(PAGE + " not found from " + here);
    }
}
