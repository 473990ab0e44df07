package dev.dedup.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.NumberFormat;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The builder's table in {@code docs/spark.md} against {@link DedupTransform.Builder}: every method the table
 * names is the builder's, every setter of the builder is in the table, and the defaults it writes are the
 * class's constants.
 */
class BuilderTableDocTest {

    private static final String PAGE = "docs/spark.md";
    private static final Pattern METHOD = Pattern.compile("`([a-zA-Z]+)\\(");

    @Test
    void theTableNamesEverySetter_andNothingElse() throws IOException {
        Set<String> written = new TreeSet<>();
        for (String row : rows()) {
            String first = row.split("\\|")[1];
            Matcher m = METHOD.matcher(first);
            while (m.find()) {
                written.add(m.group(1));
            }
        }
        Set<String> setters = Arrays.stream(DedupTransform.Builder.class.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && m.getReturnType() == DedupTransform.Builder.class)
                .map(Method::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(setters, written, PAGE + "'s builder table and DedupTransform.Builder's setters");
    }

    @Test
    void theDefaultsItWrites_areTheClasss() throws IOException {
        String chunk = NumberFormat.getIntegerInstance(Locale.US).format(DedupTransform.DEFAULT_CHUNK);
        assertTrue(
                row("chunk").contains("default " + chunk + " "),
                "chunk's row should say default " + chunk + ": " + row("chunk"));
        long patience = DedupTransform.DEFAULT_PATIENCE.toSeconds();
        assertTrue(
                row("patience").contains("default " + patience + " s"),
                "patience's row should say default " + patience + " s: " + row("patience"));
        assertTrue(
                row("verdictColumn").contains("default `" + DedupTransform.DEFAULT_VERDICT_COLUMN + "`"),
                "verdictColumn's row should say default `" + DedupTransform.DEFAULT_VERDICT_COLUMN + "`: "
                        + row("verdictColumn"));
    }

    private static String row(String method) throws IOException {
        return rows().stream()
                .filter(r -> r.split("\\|")[1].contains("`" + method + "("))
                .findFirst()
                .orElseThrow(() -> new AssertionError(PAGE + "'s builder table has no row for " + method));
    }

    /** The rows under the header {@code | builder | what it sets |}. */
    private static List<String> rows() throws IOException {
        List<String> lines = Files.readAllLines(page(), StandardCharsets.UTF_8);
        int header = lines.indexOf("| builder | what it sets |");
        assertTrue(header >= 0, PAGE + " has no builder table (| builder | what it sets |)");
        int end = header + 2;
        while (end < lines.size() && lines.get(end).startsWith("|")) {
            end++;
        }
        return lines.subList(header + 2, end);
    }

    private static Path page() {
        Path here = Path.of("").toAbsolutePath();
        for (Path dir = here; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(PAGE))) {
                return dir.resolve(PAGE);
            }
        }
        throw new AssertionError(PAGE + " not found above " + here);
    }
}
