package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.client.DedupClient;
import dev.dedup.client.DedupException;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/Dockerfile built from a clean tree, run the way the manifests run it: read-only root filesystem,
 * no capability, no privilege escalation, the data directory a volume; it answers claims, keeps them across
 * a restart, runs as a non-root user, and {@code docker stop} drains it with exit code 0.
 */
class ImageIT {

    static final String TOKEN = "image-it-token-0123456789";
    static final String NS = "image";

    static Docker docker;
    static String image;

    @BeforeAll
    static void build() {
        docker = new Docker();
        image = Docker.buildImage("dedup-agent:it");
    }

    @AfterAll
    static void clean() {
        if (docker != null) {
            docker.close();
        }
    }

    private static String runAgent(String name, String volume) {
        Docker.ok(
                Duration.ofSeconds(60),
                "run",
                "-d",
                "--name",
                name,
                "--read-only",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges",
                "-v",
                volume + ":/var/lib/dedup",
                "-e",
                "DEDUP_TOKEN=" + TOKEN,
                image,
                "--host",
                "0.0.0.0",
                "--embedded-slots",
                "65536");
        String url = "http://" + Docker.ip(name) + ":7070";
        Tools.await(Duration.ofSeconds(60), name + " listening: " + Docker.logs(name), () -> status(url) == 200);
        return url;
    }

    static int status(String url) {
        try {
            return HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(url + "/health/live"))
                                    .timeout(Duration.ofSeconds(2))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (Exception notYet) {
            return -1;
        }
    }

    @Test
    void containerAnswersClaims_keepsThemAcrossARestart_andDockerStopDrainsWithExitZero() throws Exception {
        String volume = docker.volume("data");
        String name = docker.container("agent");
        String url = runAgent(name, volume);
        DedupClient client = DedupClient.builder(URI.create(url)).token(TOKEN).build();
        List<Item> items = new ArrayList<>();
        List<Item> copies = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            items.add(new Item("img-" + i, "0:" + i));
            copies.add(new Item("img-" + i, "1:" + i));
        }
        assertEquals(Collections.nCopies(500, Verdict.NEW), client.claim(NS, items));
        assertEquals(Collections.nCopies(500, Verdict.RETRY), client.claim(NS, items));
        assertEquals(Collections.nCopies(500, Verdict.DUPLICATE), client.claim(NS, copies));
        DedupException noToken = org.junit.jupiter.api.Assertions.assertThrows(
                DedupException.class, () -> DedupClient.create(URI.create(url)).claim(NS, items));
        assertEquals(401, noToken.status());

        long t0 = System.nanoTime();
        Docker.ok(Duration.ofSeconds(60), "stop", "--time", "30", name);
        long stopMillis = (System.nanoTime() - t0) / 1_000_000;
        assertEquals("0", Docker.inspect(name, "{{.State.ExitCode}}"), () -> Docker.logs(name));
        assertTrue(Docker.logs(name).contains("dedup-agent: stopped"), () -> Docker.logs(name));
        assertTrue(stopMillis < 15_000, "docker stop took " + stopMillis + " ms: SIGTERM must not wait for SIGKILL");

        // The same volume in a new container: the claims were flushed and are still there.
        String again = docker.container("agent-again");
        String url2 = runAgent(again, volume);
        DedupClient client2 = DedupClient.builder(URI.create(url2)).token(TOKEN).build();
        assertEquals(Collections.nCopies(500, Verdict.RETRY), client2.claim(NS, items));
        assertEquals(Collections.nCopies(500, Verdict.DUPLICATE), client2.claim(NS, copies));
    }

    /**
     * The ahead-of-time cache the build trained is the one this JVM, jar and these options can use: with {@code
     * -XX:AOTMode=on} the JVM refuses to start otherwise, where by default it would only start slower.
     */
    @Test
    void aheadOfTimeCacheFitsTheImagesJvm() {
        String name = docker.container("aot");
        Tools.Result run = Docker.docker(
                Duration.ofSeconds(60),
                "run",
                "--name",
                name,
                "--read-only",
                "-e",
                "JDK_JAVA_OPTIONS=-XX:AOTMode=on",
                image,
                "--help");
        assertEquals(0, run.exit(), "the JVM could not use /app/dedup-agent.aot:\n" + run.output());
        assertTrue(run.output().contains("self-test"), run.output());
    }

    /** The SBOM the build wrote beside the jar is in the image, at /app/sbom/, as it was written. */
    @Test
    void carriesTheSbomOfItsJar() {
        Tools.Result run = Docker.docker(
                Duration.ofSeconds(60), "run", "--rm", "--entrypoint", "cat", image, "/app/sbom/dedup-agent.cdx.json");
        assertEquals(0, run.exit(), run.output());
        assertEquals(Tools.read(Tools.agentSbom()).strip(), run.output().strip());
    }

    @Test
    void runsAsNonRootUser_onAReadOnlyRootFilesystem() throws Exception {
        assertEquals(
                "10001:10001", Docker.ok(Duration.ofSeconds(30), "image", "inspect", "-f", "{{.Config.User}}", image));
        String name = docker.container("nonroot");
        runAgent(name, docker.volume("nonroot-data"));

        // The agent's process as the host sees it: not root, no capability.
        String pid = Docker.inspect(name, "{{.State.Pid}}");
        String status = Files.readString(Path.of("/proc", pid, "status"));
        String uids =
                status.lines().filter(l -> l.startsWith("Uid:")).findFirst().orElseThrow();
        for (String uid : uids.substring(4).trim().split("\\s+")) {
            assertEquals("10001", uid, status);
        }
        String capEff =
                status.lines().filter(l -> l.startsWith("CapEff:")).findFirst().orElseThrow();
        assertEquals("0000000000000000", capEff.substring(7).trim(), status);
        assertEquals("true", Docker.inspect(name, "{{.HostConfig.ReadonlyRootfs}}"));

        // Nothing but the data volume is writable, and the agent still runs.
        Tools.Result write =
                Docker.docker(Duration.ofSeconds(30), "exec", name, "sh", "-c", "touch /app/x || touch /tmp/x");
        assertNotEquals(0, write.exit(), "wrote to the read-only root filesystem: " + write.output());
        assertTrue(write.output().contains("Read-only file system"), write.output());
        Tools.Result data = Docker.docker(Duration.ofSeconds(30), "exec", name, "sh", "-c", "ls -n /var/lib/dedup");
        assertTrue(data.output().contains("claims.slots"), data.output());
        assertTrue(data.output().contains(" 10001 10001 "), data.output());
        assertEquals("true", Docker.inspect(name, "{{.State.Running}}"));
    }
}
