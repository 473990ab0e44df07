package dev.dedup.agent.config;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code docs/configuration.md} against the loader: its settings table names exactly the settings
 * {@link ConfigLoader} knows, each with the environment variable and file key the loader reads and the
 * default it applies, so that the page and the code cannot drift apart. A unit test: it reads the page and
 * calls {@link ConfigLoader#load}, nothing else.
 */
class ConfigurationDocTest {

    private static final String PAGE = "docs/configuration.md";
    /** The header of the settings table; its rows are {@code | `--flag` | `DEDUP_X` | `key` | default | text |}. */
    private static final Pattern HEADER =
            Pattern.compile("^\\|\\s*setting\\s*\\|\\s*environment\\s*\\|\\s*file key\\s*\\|\\s*default\\s*\\|.*");

    private static final Pattern FLAG = Pattern.compile("`--([a-z0-9-]+)`");
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");
    /** The file-key cell of a setting that cannot be given in a file ({@code --config}). */
    private static final String NOT_IN_FILE = "—";

    /**
     * The per-namespace settings' flags; they are also keys of {@link ConfigLoader#SETTINGS} (so
     * {@code --help} lists them), and their environment variables and file keys follow a form of their own
     * ({@code DEDUP_NAMESPACE_WINDOWS}, {@code namespace.<ns>.window}).
     */
    private static final Set<String> NAMESPACE_FLAGS = Set.copyOf(ConfigLoader.namespaceFlags());

    /** One row of the table, by its line in the page; {@code defaultValue} is null unless written as code. */
    private record Row(int line, String flag, String env, String fileKey, String defaultValue) {
        String where() {
            return PAGE + ", line " + line + " (--" + flag + ")";
        }
    }

    private static List<Row> rows;

    @TempDir
    Path dir;

    @BeforeAll
    static void readThePage() throws IOException {
        rows = parse(Files.readAllLines(page(), StandardCharsets.UTF_8));
    }

    @Test
    void theTableNamesEverySettingOfTheLoader_andNoOther() {
        Set<String> documented = new TreeSet<>();
        for (Row row : rows) {
            assertTrue(documented.add(row.flag()), row.where() + ": a second row for this setting");
        }
        Set<String> known = new TreeSet<>(ConfigLoader.SETTINGS.keySet());
        known.addAll(NAMESPACE_FLAGS);
        Set<String> undocumented = new TreeSet<>(known);
        undocumented.removeAll(documented);
        Set<String> unknown = new TreeSet<>(documented);
        unknown.removeAll(known);
        assertAll(
                () -> assertTrue(
                        undocumented.isEmpty(),
                        PAGE + " has no row for these settings of ConfigLoader: " + flags(undocumented)
                                + "; add one for each"),
                () -> assertTrue(
                        unknown.isEmpty(),
                        PAGE + " names settings that ConfigLoader does not have: " + flags(unknown)
                                + "; remove their rows, or add the settings to ConfigLoader.SETTINGS"));
    }

    @Test
    void eachRowsEnvironmentVariableAndFileKey_areTheOnesTheLoaderReads() throws IOException {
        List<Executable> checks = new ArrayList<>();
        for (Row row : loaderRows()) {
            if (!NAMESPACE_FLAGS.contains(row.flag())) {
                checks.add(() -> assertEquals(
                        "DEDUP_" + row.flag().toUpperCase(Locale.ROOT).replace('-', '_'),
                        row.env(),
                        row.where() + ": environment variable"));
            }
            checks.add(() -> assertKnown(
                    row,
                    "environment variable " + row.env(),
                    complaint(() -> ConfigLoader.load(List.of(), Map.of(row.env(), "")))));
            if (row.fileKey().equals(NOT_IN_FILE)) {
                String complaint = fileComplaint(row.flag());
                checks.add(() -> assertTrue(
                        complaint != null && complaint.contains("unknown setting"),
                        row.where() + ": says it cannot be given in a file, but the loader accepts key " + row.flag()));
                continue;
            }
            if (!NAMESPACE_FLAGS.contains(row.flag())) {
                checks.add(() -> assertEquals(row.flag(), row.fileKey(), row.where() + ": file key"));
            }
            String complaint = fileComplaint(row.fileKey().replace("<ns>", "clicks"));
            checks.add(() -> assertKnown(row, "file key " + row.fileKey(), complaint));
        }
        assertAll(checks);
    }

    @Test
    void eachDefaultInTheTable_isTheOneTheLoaderApplies() {
        AgentOptions defaults = comparable(ConfigLoader.load(List.of(), Map.of()));
        List<Executable> checks = new ArrayList<>();
        for (Row row : loaderRows()) {
            if (row.defaultValue() == null) {
                continue; // "none", "one per core": prose, not a value
            }
            checks.add(() -> assertEquals(
                    defaults,
                    comparable(ConfigLoader.load(List.of("--" + row.flag() + "=" + row.defaultValue()), Map.of())),
                    row.where() + ": the table's default `" + row.defaultValue()
                            + "` is not what the loader uses when the setting is not given"));
        }
        assertAll(checks);
    }

    /** The rows of settings the loader has; the others are reported by the first test. */
    private static List<Row> loaderRows() {
        return rows.stream()
                .filter(r -> ConfigLoader.SETTINGS.containsKey(r.flag()) || NAMESPACE_FLAGS.contains(r.flag()))
                .toList();
    }

    private static void assertKnown(Row row, String what, String complaint) {
        assertTrue(
                complaint == null || !complaint.contains("unknown setting"),
                row.where() + ": the loader does not know the " + what + ": " + complaint);
    }

    /** What the loader says about {@code key=} in a properties file, or null when it accepts it. */
    private String fileComplaint(String key) throws IOException {
        Path file = Files.createTempFile(dir, "settings", ".properties");
        Files.writeString(file, key + "=\n", StandardCharsets.UTF_8);
        return complaint(() -> ConfigLoader.load(List.of("--config", file.toString()), Map.of()));
    }

    /** The loader's one-line complaint, or null when it loads. An empty value is fine: only the name is tested. */
    private static String complaint(Supplier<AgentOptions> load) {
        try {
            load.get();
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }

    /** Options that compare equal whatever the spelling of the data directory ({@code ./dedup-data}). */
    private static AgentOptions comparable(AgentOptions o) {
        EmbeddedStoreOptions e = o.embedded();
        return new AgentOptions(
                o.http(),
                new EmbeddedStoreOptions(e.dataDir().normalize(), e.slots(), e.ways()),
                o.windows(),
                o.redis(),
                o.nearCache());
    }

    private static List<Row> parse(List<String> lines) {
        int header = -1;
        for (int i = 0; i < lines.size() && header < 0; i++) {
            if (HEADER.matcher(lines.get(i)).matches()) {
                header = i;
            }
        }
        if (header < 0) {
            fail(PAGE + " has no settings table: expected a header row"
                    + " '| setting | environment | file key | default | what it does |'");
        }
        List<Row> found = new ArrayList<>();
        for (int i = header + 2; i < lines.size() && lines.get(i).startsWith("|"); i++) {
            String[] cells = lines.get(i).split("\\|", -1);
            int line = i + 1;
            if (cells.length < 6) {
                fail(PAGE + ", line " + line + ": a row of the settings table needs five cells: " + lines.get(i));
            }
            Matcher flag = FLAG.matcher(cells[1].trim());
            Matcher env = CODE.matcher(cells[2].trim());
            if (!flag.matches() || !env.matches()) {
                fail(PAGE + ", line " + line + ": expected | `--setting` | `DEDUP_...` | ...: " + lines.get(i));
            }
            String fileCell = cells[3].trim();
            Matcher fileKey = CODE.matcher(fileCell);
            Matcher defaultValue = CODE.matcher(cells[4].trim());
            found.add(new Row(
                    line,
                    flag.group(1),
                    env.group(1),
                    fileKey.matches() ? fileKey.group(1) : fileCell,
                    defaultValue.matches() ? defaultValue.group(1) : null));
        }
        if (found.isEmpty()) {
            fail(PAGE + ": the settings table has no rows");
        }
        return found;
    }

    /** The page, from the agent module's directory (where Maven runs the test) or the repository's. */
    private static Path page() {
        Path here = Path.of("").toAbsolutePath();
        List<Path> candidates = List.of(here.resolve("../" + PAGE).normalize(), here.resolve(PAGE));
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return fail(PAGE + " not found: looked for " + candidates + " (the test runs from the agent module's"
                + " directory, the page lives in the repository's docs/)");
    }

    private static List<String> flags(Set<String> names) {
        return names.stream().map(n -> "--" + n).toList();
    }
}
