package dev.dedup.agent.config.load;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.value.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The settings as {@link Settings} declares them, against {@code docs/configuration.md} and the loader: the
 * page's table is the one the declarations produce, every environment variable and file key they name is
 * one the loader reads, and every default they write as a value is the one the loader applies. A unit test:
 * it reads the page and calls {@link ConfigLoader#load}, nothing else.
 */
class ConfigurationDocTest {

    private static final String PAGE = "docs/configuration.md";
    private static final Pattern CODE = Pattern.compile("`([^`]+)`");

    @TempDir
    Path dir;

    @Test
    void thePagesSettingsTable_isTheOneTheDeclarationsProduce() throws IOException {
        List<String> lines = Files.readAllLines(page(), StandardCharsets.UTF_8);
        int header = lines.indexOf("| setting | environment | file key | default | what it does |");
        if (header < 0) {
            fail(PAGE + " has no settings table: expected the header row of Settings.markdownTable()");
        }
        int end = header;
        while (end < lines.size() && lines.get(end).startsWith("|")) {
            end++;
        }
        String onThePage = String.join("\n", lines.subList(header, end)) + "\n";
        String declared = Settings.markdownTable();
        if (!onThePage.equals(declared)) {
            Path produced = Path.of("target", "configuration-table.md");
            Files.createDirectories(produced.getParent());
            Files.writeString(produced, declared, StandardCharsets.UTF_8);
            assertEquals(
                    declared,
                    onThePage,
                    PAGE + " (lines " + (header + 1) + "-" + end + ") differs from the settings declared in Settings:"
                            + " replace the table with agent/" + produced);
        }
    }

    @Test
    void everyEnvironmentVariableAndFileKeyDeclared_isOneTheLoaderReads() throws IOException {
        List<Executable> checks = new ArrayList<>();
        for (Setting s : Settings.ALL) {
            if (s.isConfigFile()) {
                String complaint = fileComplaint("config");
                checks.add(() -> assertTrue(
                        complaint != null && complaint.contains("unknown setting"),
                        "a file may not name another file, but the loader accepts config=: " + complaint));
                continue;
            }
            String envComplaint = complaint(() -> ConfigLoader.load(List.of(), Map.of(s.env(), "")));
            checks.add(() -> assertKnown(s, "environment variable " + s.env(), envComplaint));
            String fileComplaint = fileComplaint(s.fileKey().replace("<ns>", "clicks"));
            checks.add(() -> assertKnown(s, "file key " + s.fileKey(), fileComplaint));
        }
        assertAll(checks);
    }

    @Test
    void everyDefaultWrittenAsAValue_isTheOneTheLoaderApplies() {
        AgentOptions defaults = comparable(ConfigLoader.load(List.of(), Map.of()));
        List<Executable> checks = new ArrayList<>();
        for (Setting s : Settings.ALL) {
            Matcher value = CODE.matcher(s.defaultText());
            if (!value.matches()) {
                continue; // "none", "one per core": words, not a value
            }
            checks.add(() -> assertEquals(
                    defaults,
                    comparable(ConfigLoader.load(List.of(s.flag() + "=" + value.group(1)), Map.of())),
                    s.flag() + ": the declared default `" + value.group(1)
                            + "` is not what the loader uses when the setting is not given"));
        }
        assertTrue(checks.size() >= 15, "most defaults are values: " + checks.size());
        assertAll(checks);
    }

    @Test
    void theHelpText_isPlainText() {
        String help = Settings.help();
        assertAll(
                () -> assertTrue(!help.contains("`") && !help.contains("]("), help),
                () -> assertTrue(help.contains("docs/redis.md#changing-the-shard-list"), "a link names its page"),
                () -> assertTrue(help.lines().allMatch(l -> l.length() <= 100), "lines fit 100 columns"));
    }

    private static void assertKnown(Setting s, String what, String complaint) {
        assertTrue(
                complaint == null || !complaint.contains("unknown setting"),
                s.flag() + ": the loader does not know its " + what + ": " + complaint);
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
    static AgentOptions comparable(AgentOptions o) {
        EmbeddedStoreOptions e = o.embedded();
        return new AgentOptions(
                o.http(),
                new EmbeddedStoreOptions(e.dataDir().normalize(), e.slots(), e.ways()),
                o.windows(),
                o.redis(),
                o.nearCache());
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
        return fail(PAGE + " not found: looked for " + candidates);
    }
}
