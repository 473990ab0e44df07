package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.RedisAcl;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.TestCertificates;
import dev.dedup.wire.Item;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent jar against a redis-server that speaks only TLS to it ({@code rediss://}, a certificate signed
 * by a CA the test makes with openssl and gives the agent with {@code --redis-ca-file}) and lets it in
 * only as the ACL user the shipped tier gives it ({@link RedisAcl#AGENT}: its keys {@code ~dd*}, its channels
 * {@code &dd:*} and the commands it sends), with the default user disabled. The password must never appear in what the agent prints or answers.
 */
class RedisTlsAclIT {

    private static final String PASSWORD = "s3cret-Pass-9f27";
    private static final String NS = "tls";

    @TempDir
    Path dir;

    private Path ca;
    private TestCertificates certs;

    @BeforeEach
    void certificates() throws Exception {
        certs = TestCertificates.make(dir.resolve("tls"));
        ca = certs.ca();
    }

    /**
     * The agent's ACL user as the shipped tier writes it ({@link RedisAcl#AGENT}: its keys, its channel, the commands it
     * sends), then {@code extra} rules, the default user off.
     */
    private static List<String> limitedUser(String... extra) {
        List<String> args = new ArrayList<>(List.of("--user", "dedup", "on", ">" + PASSWORD));
        args.addAll(RedisAcl.args(RedisAcl.AGENT));
        args.addAll(List.of(extra));
        args.addAll(List.of("--user", "default", "off"));
        return args;
    }

    private RedisServer tlsRedis(int tlsPort) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(certs.serverArgs(tlsPort));
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
}
