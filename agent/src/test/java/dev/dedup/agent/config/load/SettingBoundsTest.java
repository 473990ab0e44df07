package dev.dedup.agent.config.load;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.config.value.Bounds;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.Tokens;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * A setting's bounds, declared once: a value out of them is refused with one message whether it comes by flag,
 * environment, file or an options builder, and {@code --help} and the configuration page write the bounds the
 * check uses.
 */
class SettingBoundsTest {

    @TempDir
    Path dir;

    /** A value out of bounds, as a setting and as the options built in code. */
    private record OutOfBounds(String setting, String text, String message, Executable built) {}

    private static final List<OutOfBounds> CASES = List.of(
            new OutOfBounds(
                    "max-batch",
                    "0",
                    "max-batch: 0 is not valid; use 1 to 1000000",
                    () -> HttpOptions.builder().maxBatch(0).build()),
            new OutOfBounds(
                    "max-body",
                    "2GiB",
                    "max-body: 2GiB is not valid; use 64 bytes to 1GiB",
                    () -> HttpOptions.builder().maxBody(2L << 30).build()),
            new OutOfBounds(
                    "window",
                    "366d",
                    "window: 366d is not valid; use 1s to 365d",
                    () -> new WindowOptions(Duration.ofDays(366), Map.of())),
            new OutOfBounds(
                    "redis-cluster-groups",
                    "48",
                    "redis-cluster-groups: 48 is not valid; use a power of two from 1 to 1024",
                    () -> RedisOptions.builder(List.of()).clusterGroups(48).build()),
            new OutOfBounds(
                    "near-cache-size",
                    "4",
                    "near-cache-size: 4 is not valid; use 0 (off) or 8 to 536870912 entries",
                    () -> new NearCacheOptions(4)),
            new OutOfBounds(
                    "embedded-ways",
                    "12",
                    "embedded-ways: 12 is not valid; use 4, 8 or 16",
                    () -> new EmbeddedStoreOptions(Path.of("d"), 1 << 16, 12)));

    @Test
    void aValueOutOfBounds_isRefusedAlike_byFlagEnvironmentFileAndBuilder() throws IOException {
        List<Executable> checks = new ArrayList<>();
        for (OutOfBounds c : CASES) {
            Setting s = Settings.named(c.setting());
            Path file = dir.resolve(c.setting() + ".properties");
            Files.writeString(file, c.setting() + "=" + c.text() + "\n", StandardCharsets.UTF_8);
            checks.add(() -> assertEquals(c.message(), refusal(() -> load(List.of(s.flag(), c.text()), Map.of()))));
            checks.add(() -> assertEquals(c.message(), refusal(() -> load(List.of(), Map.of(s.env(), c.text())))));
            checks.add(() ->
                    assertEquals(c.message(), refusal(() -> load(List.of("--config", file.toString()), Map.of()))));
            checks.add(() -> assertEquals(c.message(), refusal(c.built())));
        }
        assertAll(checks);
    }

    @Test
    void aPerNamespaceValueOutOfBounds_namesTheNamespacesFileKey_fromEverySource() throws IOException {
        String message = "namespace.clicks.window: 0s is not valid; use 1s to 365d";
        Path file = dir.resolve("ns.properties");
        Files.writeString(file, "namespace.clicks.window=0s\n", StandardCharsets.UTF_8);
        assertAll(
                () -> assertEquals(message, refusal(() -> load(List.of("--namespace-window", "clicks=0s"), Map.of()))),
                () -> assertEquals(
                        message, refusal(() -> load(List.of(), Map.of("DEDUP_NAMESPACE_WINDOWS", "clicks=0s")))),
                () -> assertEquals(message, refusal(() -> load(List.of("--config", file.toString()), Map.of()))),
                () -> assertEquals(
                        message,
                        refusal(() -> new WindowOptions(Duration.ofHours(1), Map.of("clicks", Duration.ZERO)))));
    }

    @Test
    void theEndsOfABound_areAccepted() {
        AgentOptions o = load(
                List.of("--max-batch", "1000000", "--max-body", "64", "--window", "365d", "--near-cache-size", "0"),
                Map.of());
        assertEquals(1_000_000, o.http().maxBatch());
        assertEquals(64, o.http().maxBody());
        assertEquals(Duration.ofDays(365), o.windows().defaultWindow());
        assertEquals(0, o.nearCache().maxEntries());
    }

    @Test
    void everyBoundedSetting_writesTheBoundsItChecks_inTheHelpAndOnThePage() {
        String table = Settings.markdownTable();
        String help = Settings.help().replaceAll("\\s+", " ");
        List<Executable> checks = new ArrayList<>();
        int bounded = 0;
        for (Setting s : Settings.ALL) {
            if (s.bounds() == null) {
                continue;
            }
            bounded++;
            String markdown = s.bounds().markdown();
            checks.add(() -> assertTrue(s.doc().contains(markdown), s.flag() + ": " + s.doc()));
            checks.add(() -> assertTrue(table.contains(s.doc()), s.flag() + " on the page"));
            checks.add(() -> assertTrue(help.contains(Settings.plain(markdown)), s.flag() + " in --help"));
        }
        assertTrue(bounded >= 15, "most settings have bounds: " + bounded);
        assertAll(checks);
    }

    private static AgentOptions load(List<String> args, Map<String, String> env) {
        return ConfigLoader.load(args, env);
    }

    private static String refusal(Executable attempt) {
        return assertThrows(ConfigException.class, attempt).getMessage();
    }

    @Test
    void aDocWritesItsSettingsBounds_andOnlyASettingWithBoundsHasThePlace() {
        Setting bounded = Setting.of("x", "`1`", Bounds.ints(1, 2), "One of {bounds}.", (d, v) -> {});
        assertEquals("One of 1 to 2.", bounded.doc());
        assertThrows(
                IllegalArgumentException.class,
                () -> Setting.of("x", "`1`", Bounds.ints(1, 2), "No place for them.", (d, v) -> {}));
        assertThrows(IllegalArgumentException.class, () -> Setting.of("x", "`1`", "Where {bounds}?", (d, v) -> {}));
    }

    @Test
    void theTokenSettingsDocAndHelpStateTheRuleForATokenAsHttpOptionsChecksIt() {
        Setting token = Settings.ALL.stream()
                .filter(s -> s.name().equals("token"))
                .findFirst()
                .orElseThrow();
        assertTrue(token.doc().contains(Tokens.RULE), token.doc());
        assertTrue(Settings.help().contains("at least " + Tokens.MIN_LENGTH + " printable"));
    }
}
