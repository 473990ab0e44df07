package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.RedisAcl;
import dev.dedup.agent.testing.RedisSentinel;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.agent.testing.TestCertificates;
import dev.dedup.wire.Item;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent jar against a Sentinel tier locked as the shipped one is (deploy/kubernetes/redis): on the data nodes and
 * on the sentinels the default user is off, and the agent logs in to both as its own user with the URI's password,
 * limited on each to what it sends ({@link RedisAcl}); the sentinels log in to the primary and to each other as
 * their own user. A failover still happens and is followed, and neither the sentinels nor the servers refuse
 * anything on the way ({@code ACL LOG} stays empty). Over TLS ({@code rediss-sentinel://}) the agent trusts the
 * sentinel and the primary it names by the CA it is given. A wrong password stops the start with a line that says
 * where it was refused, without the password.
 */
class RedisSentinelAclIT {

    private static final String MASTER = "dedupm";
    private static final String PASSWORD = "s3ntinel-Pass-61c0";
    private static final String SENTINEL_PASSWORD = "peer-Pass-2b9e";
    private static final String REPLICATION_PASSWORD = "repl-Pass-77d1";
    private static final String ADMIN_PASSWORD = "admin-Pass-03fa";
    private static final String NS = "sentinel-acl";

    @TempDir
    Path dir;

    /** A data node's users: the agent's, the sentinels', the replicas', an admin for the test, the default off. */
    private static List<String> dataNodeUsers() {
        List<String> args = new ArrayList<>(List.of("--user", "dedup", "on", ">" + PASSWORD));
        args.addAll(RedisAcl.args(RedisAcl.AGENT));
        args.addAll(List.of("--user", "sentinel", "on", ">" + SENTINEL_PASSWORD));
        args.addAll(RedisAcl.args(RedisAcl.SENTINEL));
        args.addAll(List.of("--user", "replica", "on", ">" + REPLICATION_PASSWORD, "+psync", "+replconf", "+ping"));
        args.addAll(List.of("--user", "admin", "on", ">" + ADMIN_PASSWORD, "~*", "&*", "+@all"));
        args.addAll(List.of("--user", "default", "off"));
        args.addAll(List.of("--masteruser", "replica", "--masterauth", REPLICATION_PASSWORD));
        return args;
    }

    private RedisServer dataNode(String name, List<String> more) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(dataNodeUsers());
        args.addAll(more);
        return RedisServer.start(dir.resolve(name), args.toArray(String[]::new)).login("admin", ADMIN_PASSWORD);
    }

    /** A sentinel's users and logins, as start-sentinel.sh writes them, then {@code more} lines. */
    private static RedisSentinel.Extra sentinelConfig(int quorum, List<String> more) {
        List<String> lines = new ArrayList<>(List.of(
                "user default off",
                "user admin on >" + ADMIN_PASSWORD + " allchannels +@all",
                "user dedup on >" + PASSWORD + " " + RedisAcl.AGENT_ON_SENTINEL,
                "user sentinel on >" + SENTINEL_PASSWORD + " " + RedisAcl.SENTINEL_ON_SENTINEL,
                "sentinel auth-user " + MASTER + " sentinel",
                "sentinel auth-pass " + MASTER + " " + SENTINEL_PASSWORD,
                "sentinel sentinel-user sentinel",
                "sentinel sentinel-pass " + SENTINEL_PASSWORD));
        lines.addAll(more);
        return new RedisSentinel.Extra(quorum, lines, new String[] {"admin", ADMIN_PASSWORD});
    }

    private static List<Item> items(String prefix, int n, String owner) {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            items.add(new Item(prefix + i, owner + ":" + i));
        }
        return items;
    }

    /** Whether a server or sentinel refused anything since it started: its {@code ACL LOG} is empty. */
    private static void assertNothingRefused(String what, String aclLog) {
        assertTrue(aclLog.startsWith("*0"), what + " refused: " + aclLog);
    }

    @Test
    void claimsThroughSentinelsThatWantALogin_andFollowsTheFailoverTheyAgreeOnWithTheirOwnLogins() throws Exception {
        try (RedisServer primary = dataNode("primary", List.of());
                RedisServer replica =
                        dataNode("replica", List.of("--replicaof", "127.0.0.1", String.valueOf(primary.port())))) {
            RedisServer.await(Duration.ofSeconds(10), () -> {
                try {
                    return replica.command("INFO", "replication").contains("master_link_status:up");
                } catch (IOException e) {
                    return false;
                }
            });
            try (RedisSentinel s1 = RedisSentinel.start(
                            dir.resolve("s1"), MASTER, primary.port(), sentinelConfig(2, List.of()));
                    RedisSentinel s2 = RedisSentinel.start(
                            dir.resolve("s2"), MASTER, primary.port(), sentinelConfig(2, List.of()));
                    RedisSentinel s3 = RedisSentinel.start(
                            dir.resolve("s3"), MASTER, primary.port(), sentinelConfig(2, List.of()))) {
                List<RedisSentinel> sentinels = List.of(s1, s2, s3);
                String uri = "redis-sentinel://dedup:" + PASSWORD + "@127.0.0.1:" + s1.port() + ",127.0.0.1:"
                        + s2.port() + ",127.0.0.1:" + s3.port() + "#" + MASTER;
                try (AgentProcess agent =
                        AgentProcess.start(dir.resolve("agent"), "--redis", uri, "--redis-timeout", "1s")) {
                    AgentHttp http = agent.http();
                    List<Item> before = items("before-", 500, "p1");
                    assertEquals(Collections.nCopies(500, "new"), http.claim(NS, before));
                    assertEquals(Collections.nCopies(500, "retry"), http.claim(NS, before));
                    assertEquals(Collections.nCopies(500, "duplicate"), http.claim(NS, items("before-", 500, "p2")));
                    assertEquals(Collections.nCopies(10, true), http.release(NS, before.subList(0, 10)));
                    primary.awaitReplicated(replica, Duration.ofSeconds(10)); // replicated before the fault
                    assertNothingRefused("the primary", primary.command("ACL", "LOG"));

                    primary.kill();
                    RedisServer.await(Duration.ofSeconds(60), () -> {
                        try {
                            return s1.masterPort(MASTER) == replica.port();
                        } catch (IOException e) {
                            return false;
                        }
                    });
                    RedisServer.await(
                            Duration.ofSeconds(30),
                            () -> http.post(
                                                    "/v1/claims",
                                                    "application/json",
                                                    ("{\"ns\":\"" + NS + "\",\"items\":[{\"id\":\"probe-"
                                                                    + System.nanoTime() + "\",\"owner\":\"x\"}]}")
                                                            .getBytes())
                                            .statusCode()
                                    == 200);
                    assertEquals(
                            Collections.nCopies(490, "duplicate"),
                            http.claim(NS, items("before-", 500, "p3").subList(10, 500)),
                            "what was replicated is remembered on the promoted replica");

                    String stats = AgentHttp.text(http.get("/v1/stats"));
                    assertTrue(stats.contains("redis-sentinel://dedup:***@127.0.0.1:" + s1.port()), stats);
                    for (String text : List.of(stats, agent.output())) {
                        assertFalse(text.contains(PASSWORD), "the password leaked into: " + text);
                    }
                    assertNothingRefused("the promoted replica", replica.command("ACL", "LOG"));
                    for (RedisSentinel s : sentinels) {
                        assertNothingRefused("sentinel " + s.port(), s.command("ACL", "LOG"));
                    }
                }
            }
        }
    }

    @Test
    void claimsThroughATlsSentinel_atThePrimaryItNames_trustingBothByTheCaFile() throws Exception {
        TestCertificates certs = TestCertificates.make(dir.resolve("tls"));
        int primaryTls = AgentProcess.freePort();
        int sentinelTls = AgentProcess.freePort();
        try (RedisServer primary = dataNode("primary", certs.serverArgs(primaryTls));
                RedisSentinel sentinel = RedisSentinel.start(
                        dir.resolve("s1"),
                        MASTER,
                        primaryTls,
                        sentinelConfig(
                                1,
                                List.of(
                                        "tls-port " + sentinelTls,
                                        "tls-cert-file " + certs.cert(),
                                        "tls-key-file " + certs.key(),
                                        "tls-ca-cert-file " + certs.ca(),
                                        "tls-auth-clients no",
                                        // the sentinel watches the primary over TLS too
                                        "tls-replication yes")))) {
            String uri = "rediss-sentinel://dedup:" + PASSWORD + "@127.0.0.1:" + sentinelTls + "#" + MASTER;
            try (AgentProcess untrusted =
                    AgentProcess.launch(dir.resolve("a1"), "--redis", uri, "--redis-timeout", "5s")) {
                assertEquals(1, untrusted.awaitExit(Duration.ofSeconds(30)));
                String out = untrusted.output();
                assertTrue(
                        out.contains("cannot start: redis shard rediss-sentinel://dedup:***@127.0.0.1:" + sentinelTls)
                                && out.contains("certification path"),
                        "the sentinel's certificate is checked: " + out);
                assertFalse(out.contains(PASSWORD), out);
            }
            try (AgentProcess agent = AgentProcess.start(
                    dir.resolve("a2"),
                    "--redis",
                    uri,
                    "--redis-ca-file",
                    certs.ca().toString(),
                    "--redis-timeout",
                    "5s")) {
                AgentHttp http = agent.http();
                List<Item> first = items("tls-", 200, "p1");
                assertEquals(Collections.nCopies(200, "new"), http.claim(NS, first));
                assertEquals(Collections.nCopies(200, "retry"), http.claim(NS, first));
                assertEquals(Collections.nCopies(200, "duplicate"), http.claim(NS, items("tls-", 200, "p2")));
                assertEquals(Collections.nCopies(10, true), http.release(NS, first.subList(0, 10)));
                assertEquals(
                        Collections.nCopies(10, "new"),
                        http.claim(NS, items("tls-", 10, "p2")),
                        "released, and the release reached the near-cache through the channel");
                assertTrue(
                        primary.command("INFO", "clients").contains("connected_clients:"),
                        "the primary answers the test on its plain port");
                String clients = primary.command("CLIENT", "LIST");
                assertTrue(
                        clients.contains("laddr=127.0.0.1:" + primaryTls) && clients.contains("user=dedup"),
                        "the agent reached the primary on its TLS port, as its user: " + clients);
                String stats = AgentHttp.text(http.get("/v1/stats"));
                assertTrue(stats.contains("rediss-sentinel://dedup:***@127.0.0.1:" + sentinelTls), stats);
                assertTrue(stats.contains("\"usable\" : true"), "the release channel is subscribed: " + stats);
                for (String text : List.of(stats, agent.output())) {
                    assertFalse(text.contains(PASSWORD), "the password leaked into: " + text);
                }
                assertNothingRefused("the primary", primary.command("ACL", "LOG"));
                assertNothingRefused("the sentinel", sentinel.command("ACL", "LOG"));
            }
        }
    }

    @Test
    void aWrongPassword_isRefusedByTheSentinels_andTheStartSaysSoInOneLine_withoutThePassword() throws Exception {
        String wrong = "wr0ng-" + PASSWORD;
        try (RedisServer primary = dataNode("primary", List.of());
                RedisSentinel sentinel =
                        RedisSentinel.start(dir.resolve("s1"), MASTER, primary.port(), sentinelConfig(1, List.of()))) {
            String uri = "redis-sentinel://dedup:" + wrong + "@127.0.0.1:" + sentinel.port() + "#" + MASTER;
            try (AgentProcess refused =
                    AgentProcess.launch(dir.resolve("a"), "--redis", uri, "--redis-timeout", "5s")) {
                assertEquals(1, refused.awaitExit(Duration.ofSeconds(30)));
                String out = refused.output();
                assertTrue(
                        out.contains("cannot start: redis shard redis-sentinel://dedup:***@127.0.0.1:"
                                        + sentinel.port())
                                && out.contains("127.0.0.1:" + sentinel.port() + ": ")
                                && out.contains("WRONGPASS")
                                && out.contains("logs in to the sentinels with the URI's user and password"),
                        out);
                assertFalse(out.contains(wrong), out);
                assertFalse(out.contains(PASSWORD), out);
            }
        }
    }
}
