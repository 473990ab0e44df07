package dev.dedup.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        AgentOptions o = load(List.of("--config", file.toString(), "--port", "7003"),
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
        assertEquals("0.0.0.0", load(List.of(), Map.of("DEDUP_CONFIG", file.toString())).http().host());
    }

    @Test
    void flagsTakeEqualsForm() {
        assertEquals(7005, load(List.of("--port=7005"), Map.of()).http().port());
    }

    @Test
    void namespaceWindowsFromEverySource() throws IOException {
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "namespace.clicks.window=48h\nnamespace.views.window=1h\n");
        AgentOptions o = load(List.of("--config", file.toString(), "--namespace-window", "views=30m"),
                Map.of("DEDUP_NAMESPACE_WINDOWS", "orders=7d"));
        assertEquals(Duration.ofHours(48).toMillis(), o.windows().windowMillis("clicks"));
        assertEquals(Duration.ofMinutes(30).toMillis(), o.windows().windowMillis("views"));
        assertEquals(Duration.ofDays(7).toMillis(), o.windows().windowMillis("orders"));
        assertEquals(Duration.ofHours(24).toMillis(), o.windows().windowMillis("other"));
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
    }

    @Test
    void unknownSettingsAreErrorsEverywhere() throws IOException {
        assertTrue(error(List.of("--prot", "1"), Map.of()).startsWith("--prot: unknown setting"));
        assertTrue(error(List.of(), Map.of("DEDUP_PROT", "1")).startsWith("DEDUP_PROT: unknown setting"));
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "windw=1h\n");
        assertTrue(error(List.of("--config", file.toString()), Map.of()).startsWith("windw (in "));
        assertTrue(error(List.of("--port"), Map.of()).startsWith("--port: needs a value"));
        assertTrue(error(List.of("7070"), Map.of()).contains("expected a setting"));
    }

    @Test
    void unreadableConfigFileIsNamed() {
        String message = error(List.of("--config", dir.resolve("missing.properties").toString()), Map.of());
        assertTrue(message.startsWith("config: cannot read"), message);
    }

    @Test
    void otherEnvironmentVariablesAreIgnored() {
        assertEquals(7070, load(List.of(), Map.of("PATH", "/bin", "HOME", "/root")).http().port());
    }

    @Test
    void helpListsEverySetting() {
        String help = ConfigLoader.help();
        ConfigLoader.SETTINGS.keySet().forEach(name -> assertTrue(help.contains("--" + name), name));
    }

    @Test
    void nonLoopbackHostNeedsATokenOrInsecureBind() {
        String message = error(List.of("--host", "0.0.0.0"), Map.of());
        assertTrue(message.startsWith("host: 0.0.0.0 is not a loopback address"), message);
        assertEquals("0.0.0.0", load(List.of("--host", "0.0.0.0", "--insecure-bind"), Map.of()).http().host());
        assertTrue(load(List.of("--host", "0.0.0.0", "--insecure-bind", "--port", "7071"), Map.of()).http().insecureBind());
        AgentOptions withToken = load(List.of("--host", "0.0.0.0"), Map.of("DEDUP_TOKEN", "0123456789abcdef"));
        assertEquals("0123456789abcdef", withToken.http().token());
        assertEquals("::1", load(List.of("--host", "::1"), Map.of()).http().host(), "IPv6 loopback needs nothing");
        assertTrue(error(List.of("--insecure-bind", "maybe"), Map.of()).startsWith("--insecure-bind: 'maybe'"));
    }

    @Test
    void aShortTokenIsRefusedWithoutEchoingIt() {
        String message = error(List.of("--token", "short-secret"), Map.of());
        assertTrue(message.startsWith("token: (12 characters)"), message);
        assertFalse(message.contains("short-secret"), message);
    }

    @Test
    void redisShardsSplitOnCommas_butSentinelUrisKeepTheirSentinels() {
        assertEquals(List.of("redis://a:1", "redis-sentinel://s1:26379,s2:26379,s3:26379#m", "rediss://b:2"),
                ConfigLoader.shardUris("redis://a:1, redis-sentinel://s1:26379,s2:26379,s3:26379#m,rediss://b:2"));
        assertTrue(error(List.of("--redis", "http://x:1"), Map.of()).startsWith("redis: http://x:1 is not valid"));
        assertFalse(error(List.of("--redis", "tcp://user:pw@x:1"), Map.of()).contains("pw"), "no password in errors");
    }

    @Test
    void redisCaFile_mustBeAReadableFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path pem = java.nio.file.Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        assertEquals(pem, ConfigLoader.load(List.of("--redis", "rediss://h:1", "--redis-ca-file", pem.toString()),
                Map.of()).redis().caFile());
        assertEquals(null, ConfigLoader.load(List.of("--redis", "rediss://h:1"), Map.of()).redis().caFile());
        String message = error(List.of("--redis-ca-file", dir.resolve("missing.pem").toString()), Map.of());
        assertTrue(message.startsWith("redis-ca-file: ") && message.endsWith("not a readable file"), message);
    }
}
