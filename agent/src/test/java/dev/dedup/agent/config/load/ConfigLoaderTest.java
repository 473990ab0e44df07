package dev.dedup.agent.config.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EvictionCheck;
import dev.dedup.agent.config.OpsOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowMode;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.client.DedupClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {

    @TempDir
    Path dir;

    private static AgentOptions load(List<String> args, Map<String, String> env) {
        return ConfigLoader.load(args, env);
    }

    private static String error(List<String> args, Map<String, String> env) {
        return assertThrows(ConfigException.class, () -> load(args, env)).getMessage();
    }

    @Test
    void defaultsWhenNothingIsGiven() {
        AgentOptions o = load(List.of(), Map.of());
        assertEquals("127.0.0.1", o.http().host());
        assertEquals(7070, o.http().port());
        assertEquals(10_000, o.http().maxBatch());
        assertEquals(8L << 20, o.http().maxBody());
        assertEquals(Path.of("dedup-data"), o.embedded().dataDir());
        assertEquals(Duration.ofHours(24), o.windows().defaultWindow());
    }

    @Test
    void flagBeatsEnvironmentBeatsFileBeatsDefault() throws IOException {
        Path file = dir.resolve("dedup.properties");
        Files.writeString(file, "port=7001\nwindow=1h\nmax-batch=50\nembedded-slots=4096\n");
        AgentOptions o = load(
                List.of("--config", file.toString(), "--port", "7003"),
                Map.of("DEDUP_PORT", "7002", "DEDUP_WINDOW", "2h"));
        assertEquals(7003, o.http().port(), "flag");
        assertEquals(Duration.ofHours(2), o.windows().defaultWindow(), "environment over file");
        assertEquals(50, o.http().maxBatch(), "file over default");
        assertEquals(4096, o.embedded().slots());
    }

    @Test
    void configFileFromTheEnvironment() throws IOException {
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "host=0.0.0.0\ninsecure-bind=true\n");
        assertEquals(
                "0.0.0.0",
                load(List.of(), Map.of("DEDUP_CONFIG", file.toString())).http().host());
    }

    @Test
    void aChangeOfTheShardListNamesThePreviousListAndTheCutover_inEitherForm() {
        AgentOptions o = load(
                List.of("--redis", "redis://a:1,redis://b:1,redis://c:1", "--redis-cutover", "2026-12-01T00:00:00Z"),
                Map.of("DEDUP_REDIS_PREVIOUS", "redis://a:1,redis://b:1"));
        assertEquals(
                List.of("redis://a:1", "redis://b:1"), o.redis().transition().previous());
        assertEquals(
                java.time.Instant.parse("2026-12-01T00:00:00Z"),
                o.redis().transition().cutover());
        assertEquals(
                List.of("redis://a:1", "redis://b:1", "redis://c:1"), o.redis().servers());
        AgentOptions removing = load(
                List.of(
                        "--redis",
                        "redis://a:1",
                        "--redis-previous",
                        "redis://a:1,redis://b:1",
                        "--redis-cutover",
                        "1796083200"),
                Map.of());
        assertEquals(1_796_083_200L, removing.redis().transition().cutoverSecond());
        assertEquals(List.of("redis://a:1", "redis://b:1"), removing.redis().servers());
        assertEquals(
                null, load(List.of("--redis", "redis://a:1"), Map.of()).redis().transition());
    }

    @Test
    void aChangeOfTheShardListIsRefused_whenHalfDeclared_malformed_orNoChange() {
        assertRefused(
                List.of("--redis", "redis://a:1,redis://b:1", "--redis-previous", "redis://a:1"),
                "needs redis-cutover");
        assertRefused(
                List.of("--redis", "redis://a:1,redis://b:1", "--redis-cutover", "1796083200"), "needs redis-previous");
        assertRefused(
                List.of(
                        "--redis",
                        "redis://a:1,redis://b:1",
                        "--redis-previous",
                        "redis://a:1",
                        "--redis-cutover",
                        "next tuesday"),
                "is not an instant");
        assertRefused(
                List.of("--redis", "redis://a:1", "--redis-previous", "redis://a:1", "--redis-cutover", "1796083200"),
                "nothing changes");
        assertRefused(
                List.of("--redis", "redis://a:1", "--redis-previous", "http://a:1", "--redis-cutover", "1796083200"),
                "each shard is redis://");
        assertRefused(
                List.of("--redis-previous", "redis://a:1", "--redis-cutover", "1796083200"),
                "needs the current shard list");
    }

    private static void assertRefused(List<String> args, String because) {
        ConfigException e =
                org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class, () -> load(args, Map.of()));
        org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains(because), e.getMessage());
    }

    @Test
    void flagsTakeEqualsForm() {
        assertEquals(7005, load(List.of("--port=7005"), Map.of()).http().port());
    }

    @Test
    void namespaceWindowsFromEverySource() throws IOException {
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "namespace.clicks.window=48h\nnamespace.views.window=1h\n");
        AgentOptions o = load(
                List.of("--config", file.toString(), "--namespace-window", "views=30m"),
                Map.of("DEDUP_NAMESPACE_WINDOWS", "orders=7d"));
        assertEquals(Duration.ofHours(48).toMillis(), o.windows().windowMillis("clicks"));
        assertEquals(Duration.ofMinutes(30).toMillis(), o.windows().windowMillis("views"));
        assertEquals(Duration.ofDays(7).toMillis(), o.windows().windowMillis("orders"));
        assertEquals(Duration.ofHours(24).toMillis(), o.windows().windowMillis("other"));
    }

    @Test
    void namespaceEventRatesFromEverySource() throws IOException {
        Path file = dir.resolve("c.properties");
        Files.writeString(
                file,
                "namespace.clicks.event-rate=33334\nnamespace.views.event-rate=10\n"
                        + "namespace.orders.event-rate=7\n");
        AgentOptions o = load(
                List.of("--config", file.toString(), "--namespace-event-rate", "views=20"),
                Map.of("DEDUP_NAMESPACE_EVENT_RATES", "orders=8,installs=100_000"));
        assertEquals(33_334, o.windows().eventRate("clicks"), "file");
        assertEquals(20, o.windows().eventRate("views"), "flag over file");
        assertEquals(8, o.windows().eventRate("orders"), "environment over file");
        assertEquals(100_000, o.windows().eventRate("installs"), "underscores in numbers");
        assertEquals(0, o.windows().eventRate("other"), "not filed by event time");
        assertEquals(
                Map.of("clicks", 33_334, "views", 20, "orders", 8, "installs", 100_000),
                o.windows().describeEventRates());
        assertEquals(Duration.ofHours(24).toMillis(), o.windows().windowMillis("clicks"), "windows are unchanged");
    }

    @Test
    void noEventRates_byDefault() {
        AgentOptions o = load(List.of(), Map.of());
        assertEquals(0, o.windows().eventRate("default"));
        assertTrue(o.windows().describeEventRates().isEmpty());
    }

    @Test
    void namespaceEventRateFlag_isRepeatable_andTakesLists_theLastOfANamespaceWinning() {
        AgentOptions o = load(
                List.of(
                        "--namespace-event-rate",
                        "a=1",
                        "--namespace-event-rate=b=2,c=3",
                        "--namespace-event-rate",
                        "a=4",
                        "--namespace-window",
                        "a=1h"),
                Map.of());
        assertEquals(4, o.windows().eventRate("a"));
        assertEquals(2, o.windows().eventRate("b"));
        assertEquals(3, o.windows().eventRate("c"));
        assertEquals(Duration.ofHours(1).toMillis(), o.windows().windowMillis("a"));
        assertEquals(0, o.windows().eventRate("d"));
    }

    @Test
    void starEventRate_appliesToEveryNamespaceNotNamed() throws IOException {
        AgentOptions flag =
                load(List.of("--namespace-event-rate", "*=200", "--namespace-event-rate", "clicks=5"), Map.of());
        assertEquals(200, flag.windows().eventRate("anything"));
        assertEquals(200, flag.windows().eventRate("default"));
        assertEquals(5, flag.windows().eventRate("clicks"));
        assertEquals(Map.of("*", 200, "clicks", 5), flag.windows().describeEventRates());

        assertEquals(
                9,
                load(List.of(), Map.of("DEDUP_NAMESPACE_EVENT_RATES", "*=9"))
                        .windows()
                        .eventRate("x"));
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "namespace.*.event-rate=11\n");
        assertEquals(
                11,
                load(List.of("--config", file.toString()), Map.of()).windows().eventRate("y"));
    }

    @Test
    void eventRateLimits_areOneAndAHundredMillion() {
        assertEquals(
                1,
                load(List.of("--namespace-event-rate", "a=1"), Map.of())
                        .windows()
                        .eventRate("a"));
        assertEquals(
                WindowOptions.MAX_EVENT_RATE,
                load(List.of("--namespace-event-rate", "a=100000000"), Map.of())
                        .windows()
                        .eventRate("a"));
    }

    @Test
    void badEventRates_failOnOneLineNamingTheSettingAndTheValue() throws IOException {
        assertBadFlag("namespace.clicks.event-rate: 0 is not valid; use 1 to 100000000 ids per second", "clicks=0");
        assertBadFlag("namespace.clicks.event-rate: -1 is not valid; use 1 to 100000000 ids per second", "clicks=-1");
        assertBadEnv(
                "namespace.clicks.event-rate: 100000001 is not valid; use 1 to 100000000 ids per second",
                "clicks=100000001");
        assertBadFlag("--namespace-event-rate: 'abc' is not a whole number", "clicks=abc");
        assertBadFlag("--namespace-event-rate: '' is not a whole number", "clicks=");
        assertBadEnv("DEDUP_NAMESPACE_EVENT_RATES: '1.5' is not a whole number", "clicks=1.5");
        assertBadFlag("--namespace-event-rate: '99999999999' is out of range", "clicks=99999999999");
        assertBadFlag(
                "namespace.bad ns.event-rate: bad ns is not valid; a namespace is 1 to 64 of "
                        + "A-Z a-z 0-9 . _ -, or * for every namespace",
                "bad ns=5");
        assertBadFlag(
                "namespace." + "n".repeat(65) + ".event-rate: " + "n".repeat(65) + " is not valid; "
                        + "a namespace is 1 to 64 of A-Z a-z 0-9 . _ -, or * for every namespace",
                "n".repeat(65) + "=5");
        assertBadFlag("--namespace-event-rate: 'clicks' is not ns=ids per second, e.g. clicks=33334", "clicks");
        assertBadFlag("--namespace-event-rate: '=5' is not ns=ids per second, e.g. clicks=33334", "=5");
        assertBadEnv("DEDUP_NAMESPACE_EVENT_RATES: 'x' is not ns=ids per second, e.g. clicks=33334", "a=1,x");
        assertBadEventRate("--namespace-event-rate: needs a value", List.of("--namespace-event-rate"), Map.of());

        Path file = dir.resolve("c.properties");
        Files.writeString(file, "namespace.clicks.event-rate=fast\n");
        assertBadFile("namespace.clicks.event-rate (in " + file + "): 'fast' is not a whole number", file);
        Files.writeString(file, "namespace.clicks.event-rate=0\n");
        assertBadFile("namespace.clicks.event-rate: 0 is not valid; use 1 to 100000000 ids per second", file);
        Files.writeString(file, "event-rate=5\n");
        assertBadFile("event-rate (in " + file + "): unknown setting", file);
        Files.writeString(file, "namespace-event-rate=clicks=5\n");
        assertBadFile("namespace-event-rate (in " + file + "): unknown setting", file);
    }

    @Test
    void namespaceKeysWithoutANamespace_areConfigErrors() throws IOException {
        // "namespace.event-rate" starts with "namespace." and ends with ".event-rate", the two overlapping;
        // it once reached substring(10, 9).
        for (String key : List.of("namespace.event-rate", "namespace.window", "namespace..window")) {
            Path file = dir.resolve("c.properties");
            Files.writeString(file, key + "=5\n");
            ConfigException e =
                    assertThrows(ConfigException.class, () -> load(List.of("--config", file.toString()), Map.of()));
            assertTrue(e.getMessage().startsWith(key), e.getMessage());
        }
        assertTrue(error(List.of("--namespace-event-rate", " =5"), Map.of()).contains("is not ns=ids per second"));
    }

    private void assertBadFlag(String expected, String value) {
        assertBadEventRate(expected, List.of("--namespace-event-rate", value), Map.of());
    }

    private void assertBadEnv(String expected, String value) {
        assertBadEventRate(expected, List.of(), Map.of("DEDUP_NAMESPACE_EVENT_RATES", value));
    }

    private void assertBadFile(String expected, Path file) {
        assertBadEventRate(expected, List.of("--config", file.toString()), Map.of());
    }

    private void assertBadEventRate(String expected, List<String> args, Map<String, String> env) {
        String message = error(args, env);
        assertEquals(expected, message);
        assertEquals(1, message.lines().count(), message);
    }

    @Test
    void sizesAndDurationsHaveUnits() {
        AgentOptions o = load(List.of("--max-body", "512KiB", "--window", "90s", "--idle-timeout", "1500ms"), Map.of());
        assertEquals(512 * 1024, o.http().maxBody());
        assertEquals(Duration.ofSeconds(90), o.windows().defaultWindow());
        assertEquals(Duration.ofMillis(1500), o.http().idleTimeout());
    }

    @Test
    void badValuesNameTheSettingAndTheValue() {
        assertTrue(error(List.of("--port", "abc"), Map.of()).startsWith("--port: 'abc'"));
        assertTrue(error(List.of("--port", "70000"), Map.of()).startsWith("port: 70000"));
        assertTrue(error(List.of(), Map.of("DEDUP_WINDOW", "forever")).startsWith("DEDUP_WINDOW: 'forever'"));
        assertTrue(error(List.of("--window", "0s"), Map.of()).startsWith("window: 0s"));
        assertTrue(error(List.of("--max-batch", "0"), Map.of()).startsWith("max-batch: 0"));
        assertTrue(error(List.of("--embedded-slots", "10"), Map.of()).startsWith("embedded-slots: 10"));
        assertTrue(error(List.of("--embedded-ways", "3"), Map.of()).startsWith("embedded-ways: 3"));
        assertTrue(error(List.of("--namespace-window", "bad ns=1h"), Map.of()).contains("namespace.bad ns.window"));
        assertTrue(error(List.of("--namespace-window", "clicks"), Map.of()).startsWith("--namespace-window: 'clicks'"));
        assertTrue(error(List.of("--redis", "redis://a:1", "--redis-buckets", "4096"), Map.of())
                .startsWith("--redis-buckets: unknown setting"));
    }

    @Test
    void unknownSettingsAreErrorsEverywhere() throws IOException {
        assertTrue(error(List.of("--prot", "1"), Map.of()).startsWith("--prot: unknown setting"));
        assertTrue(error(List.of("--prot"), Map.of()).startsWith("--prot: unknown setting"), "not 'needs a value'");
        assertTrue(error(List.of(), Map.of("DEDUP_PROT", "1")).startsWith("DEDUP_PROT: unknown setting"));
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "windw=1h\n");
        assertTrue(error(List.of("--config", file.toString()), Map.of()).startsWith("windw (in "));
        assertTrue(error(List.of("--port"), Map.of()).startsWith("--port: needs a value"));
        assertTrue(error(List.of("7070"), Map.of()).contains("expected a setting"));
    }

    @Test
    void unreadableConfigFileIsNamed() {
        String message =
                error(List.of("--config", dir.resolve("missing.properties").toString()), Map.of());
        assertTrue(message.startsWith("config: cannot read"), message);
    }

    @Test
    void otherEnvironmentVariablesAreIgnored() {
        assertEquals(
                7070,
                load(List.of(), Map.of("PATH", "/bin", "HOME", "/root")).http().port());
    }

    @Test
    void aPodsSharedEnvironment_theClientsUrlIsIgnored_theTokenIsTheAgentsToo() {
        String token = "shared-token-0123456789";
        Map<String, String> pod = Map.of(
                "DEDUP_URL", "http://127.0.0.1:7070", "DEDUP_TOKEN", token, "DEDUP_WINDOW", "2h", "PATH", "/bin");
        AgentOptions o = load(List.of(), pod);
        assertEquals(token, o.http().token(), "DEDUP_TOKEN is --token");
        assertEquals(Duration.ofHours(2), o.windows().defaultWindow());
        assertEquals(
                load(List.of(), Map.of("DEDUP_TOKEN", token, "DEDUP_WINDOW", "2h")),
                o,
                "DEDUP_URL changes nothing, even where it names another port than the agent's");
        assertEquals(
                7070,
                load(List.of(), Map.of("DEDUP_URL", "http://127.0.0.1:9999"))
                        .http()
                        .port());
        assertEquals(
                7070, load(List.of(), Map.of("DEDUP_URL", "not a URL")).http().port(), "not even read");
        assertEquals(
                load(List.of(), Map.of()),
                load(List.of(), Map.of("DEDUP_CA_FILE", "/no/such/ca.crt")),
                "DEDUP_CA_FILE is the clients': the agent serves --tls-cert-file");
    }

    @Test
    void anUnknownDedupVariable_isStillRefused_besideTheClientsUrl() {
        assertEquals(
                "DEDUP_URI: unknown setting (see --help for the DEDUP_* variables)",
                error(List.of(), Map.of("DEDUP_URL", "http://127.0.0.1:7070", "DEDUP_URI", "http://127.0.0.1:7070")));
        assertEquals(
                "DEDUP_URLS: unknown setting (see --help for the DEDUP_* variables)",
                error(List.of(), Map.of("DEDUP_URLS", "http://127.0.0.1:7070")));
    }

    @Test
    void theClientsVariables_areEitherIgnoredOrTheTokenSetting() {
        assertTrue(Settings.CLIENT_VARIABLES.contains(DedupClient.URL_VARIABLE), Settings.CLIENT_VARIABLES.toString());
        assertEquals("token", Settings.byEnv(DedupClient.TOKEN_VARIABLE).name());
        for (String variable : Settings.CLIENT_VARIABLES) {
            assertNull(Settings.byEnv(variable), variable + " is a setting's variable: it would be ignored");
        }
    }

    @Test
    void helpListsEverySetting() {
        String help = Settings.help();
        Settings.names().forEach(name -> assertTrue(help.contains("--" + name), name));
        assertTrue(help.contains("--namespace-event-rate"), help);
    }

    @Test
    void nonLoopbackHostNeedsATokenOrInsecureBind() {
        String message = error(List.of("--host", "0.0.0.0"), Map.of());
        assertTrue(message.startsWith("host: 0.0.0.0 is not a loopback address"), message);
        assertEquals(
                "0.0.0.0",
                load(List.of("--host", "0.0.0.0", "--insecure-bind"), Map.of())
                        .http()
                        .host());
        assertTrue(load(List.of("--host", "0.0.0.0", "--insecure-bind", "--port", "7071"), Map.of())
                .http()
                .insecureBind());
        AgentOptions withToken = load(List.of("--host", "0.0.0.0"), Map.of("DEDUP_TOKEN", "0123456789abcdef"));
        assertEquals("0123456789abcdef", withToken.http().token());
        assertEquals("::1", load(List.of("--host", "::1"), Map.of()).http().host(), "IPv6 loopback needs nothing");
        assertTrue(error(List.of("--insecure-bind", "maybe"), Map.of()).startsWith("--insecure-bind: 'maybe'"));
    }

    @Test
    void aShortTokenIsRefusedWithoutEchoingIt() {
        String message = error(List.of("--token", "short-secret"), Map.of());
        assertTrue(message.startsWith("token: a token of 12 characters is refused (too short)"), message);
        assertFalse(message.contains("short-secret"), message);
    }

    @Test
    void aTokenFileWithAWeakTokenIsRefused_namingTheFileAndTheLine_notTheToken(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "# rotated on Mondays\n" + "ab".repeat(10) + "\n");
        String message = error(List.of("--token-file", file.toString()), Map.of());
        assertTrue(
                message.startsWith("token-file: line 2 of " + file + " holds a token of 20 characters that is refused"
                        + " (fewer than 4 different characters)"),
                message);
        assertFalse(message.contains("abab"), message);
        assertEquals(
                file,
                load(
                                List.of("--host", "0.0.0.0"),
                                Map.of(
                                        "DEDUP_TOKEN_FILE",
                                        Files.writeString(dir.resolve("good"), "0123456789abcdef\n")
                                                .toString()))
                        .http()
                        .tokenFile()
                        .resolveSibling("token"));
    }

    @Test
    void noOpsPort_byDefault_theOperationsEndpointsStayOnTheClaimPort() {
        assertNull(load(List.of(), Map.of()).http().ops());
    }

    @Test
    void opsPort_fromEverySource_onEveryAddressUnlessOpsHostSays() throws IOException {
        AgentOptions flag = load(List.of("--ops-port", "7071"), Map.of());
        assertEquals(new OpsOptions("0.0.0.0", 7071), flag.http().ops());
        assertEquals("127.0.0.1", flag.http().host(), "the claim API stays on loopback");
        assertEquals(
                new OpsOptions("127.0.0.1", 9000),
                load(List.of(), Map.of("DEDUP_OPS_PORT", "9000", "DEDUP_OPS_HOST", "127.0.0.1"))
                        .http()
                        .ops());
        Path file = dir.resolve("ops.properties");
        Files.writeString(file, "ops-port=7072\nops-host=::1\n");
        assertEquals(
                new OpsOptions("::1", 7073),
                load(List.of("--config", file.toString()), Map.of("DEDUP_OPS_PORT", "7073"))
                        .http()
                        .ops(),
                "the environment beats the file");
    }

    @Test
    void opsPortOnEveryAddress_needsNoToken_butTheClaimPortStillDoes() {
        AgentOptions o = load(List.of("--ops-port", "7071", "--ops-host", "0.0.0.0"), Map.of());
        assertNull(o.http().token());
        String claims = error(List.of("--host", "0.0.0.0", "--ops-port", "7071"), Map.of());
        assertTrue(claims.startsWith("host: 0.0.0.0 is not a loopback address"), claims);
        AgentOptions both =
                load(List.of("--host", "0.0.0.0", "--ops-port", "7071"), Map.of("DEDUP_TOKEN", "0123456789abcdef"));
        assertEquals(7071, both.http().ops().port());
    }

    @Test
    void badOpsSettings_failOnOneLineNamingTheSetting() {
        assertEquals("--ops-port: 'http' is not a whole number", error(List.of("--ops-port", "http"), Map.of()));
        assertEquals("DEDUP_OPS_PORT: '' is not a whole number", error(List.of(), Map.of("DEDUP_OPS_PORT", "")));
        assertTrue(
                error(List.of("--ops-port", "70000"), Map.of()).startsWith("ops-port: 70000 is not valid"),
                error(List.of("--ops-port", "70000"), Map.of()));
        assertTrue(error(List.of("--ops-port", "-1"), Map.of()).startsWith("ops-port: -1 is not valid"));
        assertEquals(
                "--ops-host needs ops-port: it is the address of that port",
                error(List.of("--ops-host", "0.0.0.0"), Map.of()));
        assertEquals(
                "DEDUP_OPS_HOST needs ops-port: it is the address of that port",
                error(List.of(), Map.of("DEDUP_OPS_HOST", "0.0.0.0")));
        assertEquals(
                "ops-host: no-such-host.invalid cannot be resolved",
                error(List.of("--ops-port", "7071", "--ops-host", "no-such-host.invalid"), Map.of()));
        assertTrue(error(List.of("--ops-port", "7071", "--ops-host", " "), Map.of())
                .startsWith("ops-host: "));
        for (String line : List.of(
                error(List.of("--ops-port", "http"), Map.of()), error(List.of("--ops-port", "70000"), Map.of()))) {
            assertFalse(line.contains("\n"), line);
        }
    }

    @Test
    void theSamePortForClaimsAndOperations_isAConfigErrorNamingBoth() {
        String message = error(List.of("--ops-port", "7070"), Map.of());
        assertTrue(message.startsWith("ops-port: 7070 is also the claim port (port)"), message);
        String fromTheEnvironment = error(List.of("--port", "7071"), Map.of("DEDUP_OPS_PORT", "7071"));
        assertTrue(fromTheEnvironment.startsWith("ops-port: 7071 is also the claim port (port)"), fromTheEnvironment);
        // port 0 picks a free port for each: two different ones
        assertEquals(
                0,
                load(List.of("--port", "0", "--ops-port", "0"), Map.of())
                        .http()
                        .ops()
                        .port());
    }

    @Test
    void redisShardsSplitOnCommas_butSentinelUrisKeepTheirSentinels() {
        assertEquals(
                List.of("redis://a:1", "redis-sentinel://s1:26379,s2:26379,s3:26379#m", "rediss://b:2"),
                Settings.shardUris("redis://a:1, redis-sentinel://s1:26379,s2:26379,s3:26379#m,rediss://b:2"));
        assertTrue(error(List.of("--redis", "http://x:1"), Map.of()).startsWith("redis: http://x:1 is not valid"));
        assertFalse(error(List.of("--redis", "tcp://user:pw@x:1"), Map.of()).contains("pw"), "no password in errors");
    }

    @Test
    void redisCaFile_mustBeAReadableFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path pem =
                java.nio.file.Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        assertEquals(
                pem,
                ConfigLoader.load(List.of("--redis", "rediss://h:1", "--redis-ca-file", pem.toString()), Map.of())
                        .redis()
                        .caFile());
        assertEquals(
                null,
                ConfigLoader.load(List.of("--redis", "rediss://h:1"), Map.of())
                        .redis()
                        .caFile());
        String message =
                error(List.of("--redis-ca-file", dir.resolve("missing.pem").toString()), Map.of());
        assertTrue(message.startsWith("redis-ca-file: ") && message.endsWith("not a readable file"), message);
    }

    @Test
    void windowModes_fromEverySource_fixedByDefault_starForEveryNamespaceNotNamed() throws IOException {
        Path file = dir.resolve("modes.properties");
        Files.writeString(file, "namespace.clicks.window-mode=sliding\nnamespace.views.window-mode=sliding\n");
        WindowOptions windows = load(
                        List.of("--config", file.toString(), "--namespace-window-mode", "views=fixed"),
                        Map.of("DEDUP_NAMESPACE_WINDOW_MODES", "orders=sliding"))
                .windows();
        assertEquals(WindowMode.SLIDING, windows.windowMode("clicks"));
        assertEquals(WindowMode.FIXED, windows.windowMode("views"), "the flag beats the file");
        assertEquals(WindowMode.SLIDING, windows.windowMode("orders"));
        assertEquals(WindowMode.FIXED, windows.windowMode("other"));
        WindowOptions star = load(List.of("--namespace-window-mode", "*=sliding,a=fixed"), Map.of())
                .windows();
        assertEquals(WindowMode.SLIDING, star.windowMode("other"));
        assertEquals(WindowMode.FIXED, star.windowMode("a"));
    }

    @Test
    void badWindowModes_andSlidingWithEventTime_failOnOneLineNamingTheSetting() {
        assertEquals(
                "--namespace-window-mode: 'renew' is not a window mode; write fixed or sliding",
                error(List.of("--namespace-window-mode", "clicks=renew"), Map.of()));
        String both = error(
                List.of("--namespace-window-mode", "clicks=sliding", "--namespace-event-rate", "clicks=100"), Map.of());
        assertTrue(
                both.startsWith("namespace.clicks.window-mode: sliding is not valid; namespace clicks files"
                        + " claims by event time"),
                both);
        String star = error(
                List.of("--namespace-window-mode", "*=sliding", "--namespace-event-rate", "clicks=100"), Map.of());
        assertTrue(star.contains("namespace clicks files claims by event time"), star);
        load(
                List.of("--namespace-window-mode", "*=sliding,clicks=fixed", "--namespace-event-rate", "clicks=100"),
                Map.of());
    }

    @Test
    void aRedisClusterIsOneUriNamingSomeOfItsNodes_withItsGroups() {
        AgentOptions o = load(
                List.of(
                        "--redis",
                        "redis-cluster://app:secret@n1:7000,n2:7000, n3:7000",
                        "--redis-cluster-groups",
                        "64"),
                Map.of());
        assertEquals(
                List.of("redis-cluster://app:secret@n1:7000,n2:7000,n3:7000"),
                o.redis().uris());
        assertTrue(o.redis().cluster());
        assertEquals(64, o.redis().clusterGroups());
        assertEquals(
                RedisOptions.DEFAULT_CLUSTER_GROUPS,
                load(List.of("--redis", "rediss-cluster://n1:7000"), Map.of())
                        .redis()
                        .clusterGroups());
        assertFalse(load(List.of("--redis", "redis://a:1,redis://b:1"), Map.of())
                .redis()
                .cluster());
    }

    @Test
    void aRedisClusterIsTheWholeTier_mixingItWithShardsIsRefused_waitingForReplicasIsNot() {
        String mixed = error(List.of("--redis", "redis://a:1,redis-cluster://app:secret@n1:7000,n2:7000"), Map.of());
        assertTrue(mixed.contains("a redis-cluster:// URI is the whole Redis tier"), mixed);
        assertFalse(mixed.contains("secret"), mixed);
        String two = error(List.of("--redis", "redis-cluster://n1:7000,redis-cluster://m1:7000"), Map.of());
        assertTrue(two.contains("whole Redis tier"), two);
        String groups = error(List.of("--redis", "redis-cluster://n1:7000", "--redis-cluster-groups", "48"), Map.of());
        assertTrue(groups.contains("redis-cluster-groups") && groups.contains("power of two"), groups);
        String change = error(
                List.of(
                        "--redis",
                        "redis-cluster://n1:7000",
                        "--redis-previous",
                        "redis://a:1",
                        "--redis-cutover",
                        "1796083200"),
                Map.of());
        assertTrue(change.contains("moves its slots itself"), change);
        assertEquals(
                1,
                load(List.of("--redis", "redis-cluster://n1:7000", "--redis-wait-replicas", "1"), Map.of())
                        .redis()
                        .waitReplicas());
    }

    @Test
    void evictionCheck_requiresNoevictionByDefault_warnFromEverySource() throws IOException {
        assertEquals(EvictionCheck.REQUIRE, load(List.of(), Map.of()).redis().evictionCheck());
        assertEquals(
                EvictionCheck.WARN,
                load(List.of("--redis-eviction-check", "warn"), Map.of())
                        .redis()
                        .evictionCheck());
        assertEquals(
                EvictionCheck.WARN,
                load(List.of(), Map.of("DEDUP_REDIS_EVICTION_CHECK", "WARN"))
                        .redis()
                        .evictionCheck());
        Path file = dir.resolve("eviction.properties");
        Files.writeString(file, "redis-eviction-check=warn\n");
        assertEquals(
                EvictionCheck.WARN,
                load(List.of("--config", file.toString()), Map.of()).redis().evictionCheck());
        assertEquals(
                EvictionCheck.REQUIRE,
                load(List.of("--config", file.toString(), "--redis-eviction-check=require"), Map.of())
                        .redis()
                        .evictionCheck(),
                "the flag beats the file");
    }

    @Test
    void badEvictionCheck_failsOnOneLineNamingTheSettingAndTheChoices() {
        assertEquals(
                "--redis-eviction-check: 'off' is not an eviction check; write require (refuse to start unless every"
                        + " Redis server says maxmemory-policy noeviction) or warn",
                error(List.of("--redis-eviction-check", "off"), Map.of()));
        String env = error(List.of(), Map.of("DEDUP_REDIS_EVICTION_CHECK", ""));
        assertTrue(env.startsWith("DEDUP_REDIS_EVICTION_CHECK: '' is not an eviction check"), env);
    }
}
