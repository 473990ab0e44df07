package dev.dedup.agent.config.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.value.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every default the docs quote in prose, against the loader. The configuration page's table is generated from
 * {@link Settings} ({@link ConfigurationDocTest}); elsewhere a page says "`--max-batch` (10,000 by default)" or
 * "`--redis-eviction-check require`, the default". This test finds each such phrase after a setting's name in
 * README.md, docs/ (not the dated archive under docs/results/) and the READMEs under deploy/ and shared/, and
 * loads the agent with the quoted value: the options must be the ones it has with nothing given.
 */
class ProseDefaultsTest {

    /** A setting named in backquotes: {@code `--max-batch`}, {@code `--window 48h`}, or {@code `max-batch`}. */
    private static final Pattern MENTION = Pattern.compile("`(--)?([a-z][a-z-]*)(?:[ =]([^`]*))?`");

    /** A default quoted after the setting: "(default 10,000)", "default `2s`", "10,000 by default", "…, the default". */
    private static final Pattern QUOTED = Pattern.compile("\\(default:?\\s+(?<a>[^)]+?)\\)"
            + "|\\bdefaults? (?:to |is |of )?(?<b>`[^`]+`|\\d[\\d,.]*(?:\\s?[A-Za-z]+)?)"
            + "|(?<c>`[^`]+`|\\d[\\d,.]*(?:\\s?[A-Za-z]+)?)\\)?,? by default"
            + "|(?<d>),? the default\\b"
            + "|\\b[Tt]he default (?<word>near-cache|window) of (?<e>\\d[\\d,.]*(?:\\s?[A-Za-z]+)?)");

    /** A setting's name and, right after it, a value in brackets or after a comma: "`--redis-timeout` (2 s)". */
    private static final Pattern ALONGSIDE = Pattern.compile("(?:\\(`--([a-z][a-z-]*)`, |`--([a-z][a-z-]*)` \\()"
            + "(\\d[\\d,.]*+(?:\\s?(?!by\\b)[A-Za-z]+)?)(?!\\s*,?\\s*by default)");

    /** Words that name a setting in prose, where a sentence names no setting in backquotes. */
    private static final Map<String, String> WORDS = Map.of("window", "window", "near-cache", "near-cache-size");

    /** A number with the unit the loader reads, as prose writes it: "10,000", "8 MiB", "24 h", "60 s". */
    private static final Pattern AMOUNT = Pattern.compile(
            "(\\d[\\d,]*(?:\\.\\d+)?)\\s?(KiB|MiB|GiB|Ki|Mi|ms|s|m|h|d|min|minutes?|hours?|seconds?|days?)?(?:[\\s:,].*)?");

    /** Settings whose default applies only beside another: what is given with them to compare. */
    private static final Map<String, List<String>> BESIDE = Map.of("ops-host", List.of("--ops-port=9090"));

    private static final Map<String, String> UNIT_WORDS = Map.of(
            "min", "m", "minute", "m", "minutes", "m", "hour", "h", "hours", "h", "second", "s", "seconds", "s", "day",
            "d", "days", "d");

    @Test
    void everyDefaultQuotedInProse_isTheOneTheLoaderApplies() {
        Map<String, Setting> settings =
                Settings.ALL.stream().filter(s -> !s.isConfigFile()).collect(Collectors.toMap(Setting::name, s -> s));
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            List<String> lines = read(page);
            int first = 0;
            while (first < lines.size()) {
                int end = first;
                do {
                    end++;
                } while (end < lines.size() && !lines.get(end).isBlank() && !startsUnit(lines.get(end)));
                List<String> paragraph = lines.subList(first, end).stream()
                        .filter(l -> !isGeneratedTableRow(page, l))
                        .toList();
                for (Quote q : quotes(String.join(" ", paragraph), settings)) {
                    checked++;
                    String where = repo().relativize(page) + " (paragraph at line " + (first + 1) + "): `--"
                            + q.setting().name() + "`";
                    complaints(where, q).ifPresent(wrong::add);
                }
                first = end < lines.size() && lines.get(end).isBlank() ? end + 1 : end;
            }
        }
        if (!wrong.isEmpty()) {
            fail("defaults quoted in the docs that are not the agent's:\n  " + String.join("\n  ", wrong));
        }
        assertTrue(checked >= 10, "the docs quote at least ten defaults in prose; found " + checked);
    }

    @Test
    void aQuotedDefault_isFoundAfterItsSetting() {
        Map<String, Setting> settings = Settings.ALL.stream().collect(Collectors.toMap(Setting::name, s -> s));
        assertEquals(
                List.of(new Quote(settings.get("max-batch"), "10,000"), new Quote(settings.get("max-body"), "`8MiB`")),
                quotes("`--max-batch` (10,000 by default) and `--max-body` (default `8MiB`)", settings));
        assertEquals(
                List.of(new Quote(settings.get("redis-eviction-check"), "require")),
                quotes("it refuses to start (`--redis-eviction-check require`, the default).", settings));
        assertEquals(
                List.of(
                        new Quote(settings.get("redis-timeout"), "2 s"),
                        new Quote(settings.get("idle-timeout"), "60 s")),
                quotes("within `--redis-timeout` (2 s) or (`--idle-timeout`, 60 s)", settings));
        assertEquals(
                List.of(new Quote(settings.get("window"), "24h")),
                quotes("each namespace has a window (default 24h) for", settings));
        assertEquals(
                List.of(new Quote(settings.get("near-cache-size"), "1 Mi")),
                quotes("below. The default near-cache of 1 Mi ids (16 MiB) is", settings));
        assertEquals(List.of(), quotes("`--window`. The default is none of this", settings), "not past a sentence");
        assertEquals(List.of(), quotes("| the window you set | NATS 2 min by default |", settings), "not past a cell");
        assertEquals(List.of(), quotes("`--redis-timeout`, 503s and", settings), "a list is not a value");
        assertEquals(Optional.of("24h"), loaderValue("24 h"));
        assertEquals(Optional.of("10000"), loaderValue("10,000 ids"));
        assertEquals(Optional.of("require"), loaderValue("`require`"));
        assertEquals(Optional.of("0.0.0.0"), loaderValue("`0.0.0.0`"));
        assertEquals(Optional.of("1048576"), loaderValue("1 Mi ids"));
        assertEquals(Optional.empty(), loaderValue("a quarter of the window"));
    }

    /** What is wrong with one quoted default: nothing, or a line saying what. */
    private static Optional<String> complaints(String where, Quote q) {
        Optional<String> value = loaderValue(q.text());
        if (value.isEmpty()) {
            return Optional.of(where + " quoted as '" + q.text() + "', not a value the setting takes");
        }
        List<String> args = new ArrayList<>(BESIDE.getOrDefault(q.setting().name(), List.of()));
        args.add("--" + q.setting().name() + "=" + value.get());
        try {
            AgentOptions quoted = ConfigurationDocTest.comparable(ConfigLoader.load(args, Map.of()));
            AgentOptions expected = ConfigurationDocTest.comparable(
                    ConfigLoader.load(BESIDE.getOrDefault(q.setting().name(), List.of()), Map.of()));
            return quoted.equals(expected)
                    ? Optional.empty()
                    : Optional.of(where + " quoted as '" + q.text() + "'; the default is "
                            + q.setting().defaultText());
        } catch (ConfigException e) {
            return Optional.of(where + " quoted as '" + q.text() + "', which the loader refuses: " + e.getMessage());
        }
    }

    record Quote(Setting setting, String text) {}

    /** The defaults quoted on one line, each with the setting named last before it in the same sentence. */
    static List<Quote> quotes(String line, Map<String, Setting> settings) {
        List<Quote> found = new ArrayList<>();
        Matcher quote = QUOTED.matcher(line);
        while (quote.find()) {
            String before = line.substring(0, quote.start());
            int cell = before.lastIndexOf(" | ");
            int sentence =
                    Math.max(Math.max(before.lastIndexOf(". "), before.lastIndexOf("; ")), cell < 0 ? -1 : cell + 1);
            Matcher mention = MENTION.matcher(before.substring(sentence + 1));
            Setting setting = null;
            String inline = null;
            while (mention.find()) {
                Setting s = settings.get(mention.group(2));
                boolean named =
                        s != null && (mention.group(1) != null || s.name().contains("-"));
                setting = named ? s : setting;
                inline = named ? mention.group(3) : inline;
            }
            if (quote.group("word") != null) {
                setting = settings.get(WORDS.get(quote.group("word")));
            }
            if (setting == null) {
                setting = namedInWords(before.substring(sentence + 1), settings);
            }
            if (setting == null || setting.isConfigFile()) {
                continue;
            }
            String text = quote.group("d") != null ? inline : firstOf(quote, "a", "b", "c", "e");
            if (text != null) {
                found.add(new Quote(setting, text.strip()));
            }
        }
        Matcher alongside = ALONGSIDE.matcher(line);
        while (alongside.find()) {
            Setting s = settings.get(alongside.group(1) != null ? alongside.group(1) : alongside.group(2));
            if (s != null && !s.isConfigFile()) {
                found.add(new Quote(s, alongside.group(3).strip()));
            }
        }
        return found;
    }

    /** The setting a sentence names in words ("the window"), the last one before the quote, or null. */
    private static Setting namedInWords(String sentence, Map<String, Setting> settings) {
        Setting named = null;
        int at = -1;
        for (Map.Entry<String, String> w : WORDS.entrySet()) {
            Matcher m = Pattern.compile("(?<![`-])\\b" + Pattern.quote(w.getKey()) + "\\b(?![`-])")
                    .matcher(sentence);
            while (m.find()) {
                if (m.start() > at) {
                    at = m.start();
                    named = settings.get(w.getValue());
                }
            }
        }
        return named;
    }

    /** The quoted text as the loader reads it, when it is a value: backquotes, digit commas and spaces gone. */
    static Optional<String> loaderValue(String text) {
        String bare = text.replace("`", "").strip();
        Matcher amount = AMOUNT.matcher(bare);
        if (amount.matches()) {
            String unit = amount.group(2) == null ? "" : amount.group(2);
            String number = amount.group(1).replace(",", "");
            if (unit.equals("Ki") || unit.equals("Mi")) {
                return Optional.of(String.valueOf(Long.parseLong(number) << (unit.equals("Ki") ? 10 : 20)));
            }
            return Optional.of(number + UNIT_WORDS.getOrDefault(unit, unit));
        }
        return bare.matches("[A-Za-z0-9][\\w.:/-]*") ? Optional.of(bare) : Optional.empty();
    }

    /** A line that starts a unit of its own: a table row, a list item, a heading. */
    private static boolean startsUnit(String line) {
        return line.matches("\\s*(\\||[-*] |\\d+\\. |#).*");
    }

    private static String firstOf(Matcher m, String... groups) {
        for (String g : groups) {
            if (m.group(g) != null) {
                return m.group(g);
            }
        }
        return null;
    }

    /** The rows of the table {@link Settings#markdownTable()} writes, which {@link ConfigurationDocTest} checks. */
    private static boolean isGeneratedTableRow(Path page, String line) {
        return page.endsWith(Path.of("docs", "configuration.md")) && line.startsWith("| `--");
    }

    private static List<Path> pages() {
        Path repo = repo();
        List<Path> pages = new ArrayList<>(List.of(repo.resolve("README.md")));
        for (String dir : List.of("docs", "deploy", "shared")) {
            try (Stream<Path> walk = Files.walk(repo.resolve(dir))) {
                walk.filter(p -> p.toString().endsWith(".md"))
                        .filter(p -> !p.toString().contains("/target/")
                                && !p.toString().contains("/node_modules/"))
                        .filter(p -> !p.startsWith(repo.resolve("docs/results")))
                        .filter(p -> dir.equals("docs")
                                || p.getFileName()
                                        .toString()
                                        .toLowerCase(Locale.ROOT)
                                        .equals("readme.md"))
                        .sorted()
                        .forEach(pages::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return pages;
    }

    private static List<String> read(Path page) {
        try {
            return Files.readAllLines(page, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The repository, from the agent module's directory (where Maven runs the test) or its own. */
    private static Path repo() {
        Path here = Path.of("").toAbsolutePath();
        return Files.isRegularFile(here.resolve("docs/configuration.md"))
                ? here
                : here.resolve("..").normalize();
    }
}
