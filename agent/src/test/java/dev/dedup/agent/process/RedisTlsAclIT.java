package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.Item;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent jar against a redis-server that speaks only TLS to it ({@code rediss://}, a certificate signed
 * by a CA the test makes with openssl and gives the agent with {@code --redis-ca-file}) and lets it in
 * only as an ACL user limited to the agent's keys ({@code ~dd*}) and channels ({@code &dd:*}), with the
 * default user disabled. The password must never appear in what the agent prints or answers.
 */
class RedisTlsAclIT {

    private static final String PASSWORD = "s3cret-Pass-9f27";
    private static final String NS = "tls";

    @TempDir
    Path dir;

    private Path ca;
    private Path cert;
    private Path key;

    @BeforeEach
    void certificates() throws Exception {
        ca = dir.resolve("ca.crt");
        cert = dir.resolve("server.crt");
        key = dir.resolve("server.key");
        Path caKey = dir.resolve("ca.key");
        Path csr = dir.resolve("server.csr");
        Path ext = dir.resolve("ext.cnf");
        Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        openssl(
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                caKey.toString(),
                "-out",
                ca.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=dedup test CA");
        openssl(
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                key.toString(),
                "-out",
                csr.toString(),
                "-subj",
                "/CN=127.0.0.1");
        openssl(
                "x509",
                "-req",
                "-in",
                csr.toString(),
                "-CA",
                ca.toString(),
                "-CAkey",
                caKey.toString(),
                "-CAcreateserial",
                "-out",
                cert.toString(),
                "-days",
                "2",
                "-extfile",
                ext.toString());
    }

    private void openssl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile())
                .start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "openssl hung");
        assertEquals(
                0, p.exitValue(), () -> "openssl " + String.join(" ", args) + ": " + read(dir.resolve("openssl.log")));
    }

    /** The agent's ACL user, limited to its keys and channels (and {@code extra} rules), the default user off. */
    private static List<String> limitedUser(String... extra) {
        List<String> args = new ArrayList<>(List.of("--user", "dedup", "on", ">" + PASSWORD, "~dd*", "&dd:*", "+@all"));
        args.addAll(List.of(extra));
        args.addAll(List.of("--user", "default", "off"));
        return args;
    }

    private RedisServer tlsRedis(int tlsPort) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of(
                "--tls-port",
                String.valueOf(tlsPort),
                "--tls-cert-file",
                cert.toString(),
                "--tls-key-file",
                key.toString(),
                "--tls-ca-cert-file",
                ca.toString(),
                "--tls-auth-clients",
                "no"));
        args.addAll(limitedUser());
        return RedisServer.start(dir.resolve("redis"), args.toArray(String[]::new));
    }

    @Test
    void claimsAndReleasesOverTlsAsALimitedAclUser_andThePasswordIsNeverShown() throws Exception {
        int tlsPort = AgentProcess.freePort();
        try (RedisServer redis = tlsRedis(tlsPort)) {
            String uri = "rediss://dedup:" + PASSWORD + "@127.0.0.1:" + tlsPort;
            try (AgentProcess agent = AgentProcess.start(
                    dir.resolve("agent"), "--redis", uri, "--redis-ca-file", ca.toString(), "--redis-timeout", "10s")) {
                AgentHttp http = agent.http();
                List<Item> items = new ArrayList<>();
                List<Item> copies = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    items.add(new Item("tls-" + i, "p1:" + i));
                    copies.add(new Item("tls-" + i, "p2:" + i));
                }
                assertEquals(Collections.nCopies(200, "new"), http.claim(NS, items));
                assertEquals(Collections.nCopies(200, "retry"), http.claim(NS, items));
                assertEquals(Collections.nCopies(200, "duplicate"), http.claim(NS, copies));
                assertEquals(Collections.nCopies(10, true), http.release(NS, items.subList(0, 10)));
                assertEquals(
                        Collections.nCopies(10, "new"),
                        http.claim(NS, copies.subList(0, 10)),
                        "released over TLS, and the release reached the near-cache through the channel");

                String stats = AgentHttp.text(http.get("/v1/stats"));
                assertTrue(stats.contains("rediss://dedup:***@127.0.0.1:" + tlsPort), stats);
                assertTrue(stats.contains("\"usable\" : true"), "the release channel is subscribed over TLS: " + stats);
                String metrics = AgentHttp.text(http.get("/metrics"));

                redis.kill();
                HttpResponse<byte[]> down = http.post(
                        "/v1/claims",
                        "application/json",
                        "{\"ns\":\"tls\",\"items\":[{\"id\":\"x\",\"owner\":\"y\"}]}".getBytes());
                assertEquals(503, down.statusCode());
                String error = AgentHttp.text(down);

                for (String text : List.of(stats, metrics, error, agent.output())) {
                    assertFalse(text.contains(PASSWORD), "the password leaked into: " + text);
                }
            }
        }
    }

    /**
     * A server that lost the scripts (restart, failover, {@code SCRIPT FLUSH}) is sent them whole with {@code EVAL}:
     * a user that may not run it would serve until the first restart, then answer nothing but 503, so the start
     * refuses it.
     */
    @Test
    void aUserThatMayNotRunEval_isRefusedAtTheStart_namingTheCommand() throws Exception {
        try (RedisServer redis =
                RedisServer.start(dir.resolve("plain"), limitedUser("-eval").toArray(String[]::new))) {
            String uri = "redis://dedup:" + PASSWORD + "@127.0.0.1:" + redis.port();
            try (AgentProcess refused =
                    AgentProcess.launch(dir.resolve("a4"), "--redis", uri, "--redis-timeout", "10s")) {
                assertEquals(1, refused.awaitExit(Duration.ofSeconds(30)));
                String out = refused.output();
                assertTrue(
                        out.contains("redis shard redis://dedup:***@127.0.0.1:" + redis.port()
                                        + ": cannot load the scripts")
                                && out.contains("eval"),
                        out);
                assertFalse(out.contains(PASSWORD), out);
            }
        }
    }

    @Test
    void withoutTheCaFile_orWithAWrongPassword_theStartFailsWithOneClearLine_withoutThePassword() throws Exception {
        int tlsPort = AgentProcess.freePort();
        try (RedisServer redis = tlsRedis(tlsPort)) {
            String uri = "rediss://dedup:" + PASSWORD + "@127.0.0.1:" + tlsPort;
            try (AgentProcess untrusted =
                    AgentProcess.launch(dir.resolve("a1"), "--redis", uri, "--redis-timeout", "10s")) {
                assertEquals(1, untrusted.awaitExit(Duration.ofSeconds(30)));
                String out = untrusted.output();
                assertTrue(
                        out.contains("cannot start: redis shard rediss://dedup:***@127.0.0.1:" + tlsPort)
                                && out.contains("certification path"),
                        out);
                assertFalse(out.contains(PASSWORD), out);
            }
            String wrong = "rediss://dedup:not-" + PASSWORD + "@127.0.0.1:" + tlsPort;
            try (AgentProcess refused = AgentProcess.launch(
                    dir.resolve("a2"), "--redis", wrong, "--redis-ca-file", ca.toString(), "--redis-timeout", "10s")) {
                assertEquals(1, refused.awaitExit(Duration.ofSeconds(30)));
                String out = refused.output();
                assertTrue(out.contains("WRONGPASS"), out);
                assertFalse(out.contains(PASSWORD), out);
            }
            try (AgentProcess missing = AgentProcess.launch(
                    dir.resolve("a3"),
                    "--redis",
                    uri,
                    "--redis-ca-file",
                    dir.resolve("nowhere.pem").toString())) {
                assertEquals(2, missing.awaitExit(Duration.ofSeconds(30)));
                assertTrue(missing.output().contains("redis-ca-file"), missing.output());
            }
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
