package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/systemd/dedup-agent.service: {@code systemd-analyze verify} accepts it; its ExecStart, run with the
 * example environment file, answers on loopback, keeps its claims in the state directory across a restart
 * and ends with exit code 0 on its KillSignal within TimeoutStopSec. deploy/emr/bootstrap.sh installs it.
 */
class SystemdIT {

    static final Path UNIT = Tools.DEPLOY.resolve("systemd/dedup-agent.service");

    @TempDir
    Path dir;

    static Map<String, String> unit() {
        Map<String, String> keys = new LinkedHashMap<>();
        for (String line : Tools.read(UNIT).split("\n")) {
            int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0) {
                keys.putIfAbsent(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return keys;
    }

    /** KEY=value lines of an environment file, as systemd reads them (comments and blanks skipped). */
    static Map<String, String> environmentFile(Path file) {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : Tools.read(file).split("\n")) {
            String l = line.strip();
            if (!l.isEmpty() && !l.startsWith("#")) {
                env.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1));
            }
        }
        return env;
    }

    @Test
    void systemdAnalyzeVerifiesTheUnit() {
        Tools.require("systemd-analyze", "systemd");
        String java = unit().get("ExecStart").split(" ")[0];
        assertTrue(
                Files.isExecutable(Path.of(java)),
                java + " (the unit's java) must exist for verify: install openjdk-17-jre-headless");
        Tools.Result r = Tools.run(Duration.ofMinutes(1), Tools.list("systemd-analyze", "verify", UNIT.toString()));
        assertEquals(0, r.exit(), r.output());
        assertEquals("", r.output().strip(), "no warning");
        Map<String, String> u = unit();
        assertEquals("dedup", u.get("User"));
        assertEquals("strict", u.get("ProtectSystem"));
        assertEquals("dedup", u.get("StateDirectory"));
        assertEquals("on-failure", u.get("Restart"));
        assertEquals("", u.get("CapabilityBoundingSet"));
    }

    @Test
    void execStartRunsTheAgent_keepsClaimsInTheStateDirectory_andStopsWithExitZero() throws Exception {
        Map<String, String> u = unit();
        Path state = dir.resolve("var-lib-dedup");
        List<String> cmd = new ArrayList<>();
        for (String word : u.get("ExecStart").split("\\s+")) {
            cmd.add(word.replace("/opt/dedup/dedup-agent.jar", Tools.agentJar().toString())
                    .replace("/var/lib/dedup", state.toString()));
        }
        assertTrue(Arrays.asList(u.get("ExecStart").split(" ")).contains("/var/lib/dedup"), "the StateDirectory");
        // EnvironmentFile: the example as shipped, and the port a user would set there (a free one here)
        Map<String, String> env = environmentFile(Tools.DEPLOY.resolve("systemd/agent.env.example"));
        int port = AgentProcess.freePort();
        env.put("DEDUP_PORT", String.valueOf(port));
        long stopTimeout = Long.parseLong(u.get("TimeoutStopSec"));
        assertEquals("SIGTERM", u.get("KillSignal"));

        List<Item> items = new ArrayList<>();
        List<Item> copies = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            items.add(new Item("unit-" + i, "0:" + i));
            copies.add(new Item("unit-" + i, "1:" + i));
        }
        for (int run = 0; run < 2; run++) {
            try (Proc agent = Proc.start(cmd, env, dir, "agent-" + run)) {
                Tools.await(
                        Duration.ofSeconds(60),
                        "agent up: " + agent.output(),
                        () -> Proc.probe("127.0.0.1", port, "/health/ready", 1) == 200);
                DedupClient worker = DedupClient.create(URI.create("http://127.0.0.1:" + port));
                Verdict first = run == 0 ? Verdict.NEW : Verdict.RETRY;
                assertEquals(Collections.nCopies(200, first), worker.claim("unit", items));
                assertEquals(Collections.nCopies(200, Verdict.DUPLICATE), worker.claim("unit", copies));
                assertTrue(Files.exists(state.resolve("claims.slots")), "the store in StateDirectory");
                assertEquals(0, agent.terminate(Duration.ofSeconds(stopTimeout)), agent.output());
            }
        }
    }

    @Test
    void emrBootstrapInstallsTheUnitTheJarAndTheSecretEnvironment() throws Exception {
        // aws, sudo, id, useradd and systemctl as stubs that record what they are asked
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path calls = dir.resolve("calls.log");
        Path bucket = Files.createDirectories(dir.resolve("bucket/dedup"));
        Files.copy(Tools.agentJar(), bucket.resolve("dedup-agent.jar"));
        Files.copy(UNIT, bucket.resolve("dedup-agent.service"));
        String secretEnv = "DEDUP_REDIS=redis://dedup:s3cr3t-s3cr3t@redis.internal:6379\nDEDUP_WINDOW=48h\n";
        Files.writeString(dir.resolve("secret.txt"), secretEnv);
        stub(bin, "aws", """
                echo "aws $*" >> "$CALLS"
                if [ "$1" = s3 ]; then cp "$BUCKET/${4#s3://bucket/dedup/}" "$5"; fi
                if [ "$1" = secretsmanager ]; then cat "$SECRET"; fi
                """);
        stub(bin, "sudo", "\"$@\"");
        stub(bin, "id", "echo \"id $*\" >> \"$CALLS\"; exit 1");
        stub(bin, "useradd", "echo \"useradd $*\" >> \"$CALLS\"");
        stub(bin, "systemctl", "echo \"systemctl $*\" >> \"$CALLS\"");
        Path root = Files.createDirectories(dir.resolve("root"));
        Map<String, String> env = Map.of(
                "PATH", bin + ":/usr/bin:/bin",
                "CALLS", calls.toString(),
                "BUCKET", bucket.toString(),
                "SECRET", dir.resolve("secret.txt").toString(),
                "DEDUP_ROOT", root.toString());
        Tools.run(
                        Duration.ofMinutes(1),
                        Tools.list(
                                "bash",
                                Tools.DEPLOY.resolve("emr/bootstrap.sh").toString(),
                                "s3://bucket/dedup",
                                "dedup/agent-env"),
                        dir,
                        env)
                .ok("bootstrap.sh");

        assertEquals(Files.size(Tools.agentJar()), Files.size(root.resolve("opt/dedup/dedup-agent.jar")));
        assertEquals(Tools.read(UNIT), Tools.read(root.resolve("etc/systemd/system/dedup-agent.service")));
        Path envFile = root.resolve("etc/dedup/agent.env");
        assertEquals(secretEnv, Tools.read(envFile));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(envFile)));
        String log = Tools.read(calls);
        assertTrue(log.contains("useradd --system --no-create-home --shell /sbin/nologin dedup"), log);
        assertTrue(log.contains("aws secretsmanager get-secret-value --secret-id dedup/agent-env"), log);
        assertTrue(log.contains("systemctl daemon-reload\nsystemctl enable --now dedup-agent.service"), log);
        assertTrue(!log.contains("s3cr3t"), "the secret is on no command line: " + log);
        // and the environment it wrote is one the agent accepts
        assertTrue(environmentFile(envFile).keySet().stream().allMatch(k -> k.startsWith("DEDUP_")));
    }

    private static void stub(Path bin, String name, String body) throws Exception {
        Path f = bin.resolve(name);
        Files.writeString(f, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
