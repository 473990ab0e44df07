package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real jar with its data directory on a small file system of its own (a tmpfs, as a pod's memory-backed volume;
 * ext4 and XFS on a loop device, as a node's disk) and a 1 GiB slot file, sparse. The agent first claims and re-claims
 * one batch until its claim path is compiled; then a ballast file takes all but 4 MiB of the room, and fresh ids are
 * claimed until the slot file cannot grow. The agent must answer that 503 naming the cause, keep what it
 * acknowledged, never answer the refused batch as a duplicate of itself, keep deciding ids whose part of the file
 * exists (on ext4 and XFS also once the kernel dropped its pages and the mapping reads them back), and take the
 * refused batch once
 * the ballast is gone, without a restart. An agent killed on a tmpfs smaller than its file starts again without making
 * the file resident (a tmpfs backs every page read through a mapping). On btrfs, where a full disk faults writes to
 * allocated pages too, the agent says so at start. Needs root to mount.
 */
class EmbeddedDiskFullIT {

    /** 64 Mi slots of 16 bytes: a 1 GiB file, far beyond the mount. */
    private static final String SLOTS = "67108864";

    private static final String NS = "t";
    private static final int WARM_UP = 500;
    private static final int BATCH = 10;
    /** Where each file system's mkfs comes from on Debian. */
    private static final java.util.Map<String, String> PACKAGES =
            java.util.Map.of("ext4", "e2fsprogs", "xfs", "xfsprogs", "btrfs", "btrfs-progs");
    /** What the ballast leaves free. */
    private static final long ROOM_KIB = 4096;

    @TempDir
    Path work;

    @BeforeAll
    static void linuxAndRoot() throws Exception {
        assumeTrue(
                System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux"),
                "a tmpfs or loop mount needs Linux");
        String uid = run("id", "-u").strip();
        assumeTrue(uid.equals("0"), "mounting a file system needs root (uid " + uid + ")");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tmpfs", "ext4", "xfs"})
    void diskFull_answers503NamingTheCause_losesNothingAcknowledged_andServesAgainOnceThereIsRoom(String type)
            throws Exception {
        try (Mount mount = Mount.of(type, work)) {
            Path dataDir = mount.dir.resolve("data");
            try (AgentProcess agent =
                    AgentProcess.start(work, "--data-dir", dataDir.toString(), "--embedded-slots", SLOTS)) {
                AgentHttp http = agent.http();

                List<List<Item>> acked = new ArrayList<>();
                List<Item> warm = batch("warm", WARM_UP, "p");
                assertEquals(Collections.nCopies(WARM_UP, "new"), http.claim(NS, warm));
                acked.add(warm);
                for (int i = 0; i < 100; i++) {
                    assertEquals(Collections.nCopies(WARM_UP, "retry"), http.claim(NS, warm), "warm-up round " + i);
                }

                // A few MiB of room left: fresh ids soon need a part of the file the file system cannot hold.
                Path ballast = mount.dir.resolve("ballast");
                String filled = run("fallocate", "-l", (mount.availableKib() - ROOM_KIB) + "k", ballast.toString());
                assertTrue(mount.availableKib() <= ROOM_KIB + 1024, "fallocate: " + filled + mount.df());

                HttpResponse<byte[]> refused = null;
                List<Item> refusedBatch = null;
                for (int n = 0; n < 5000 && refused == null; n++) {
                    List<Item> batch = batch("full-" + n, BATCH, "p");
                    HttpResponse<byte[]> r = post(http, batch);
                    if (r.statusCode() == 200) {
                        assertEquals(Collections.nCopies(BATCH, "new"), AgentHttp.verdicts(r), "fresh ids, batch " + n);
                        acked.add(batch);
                    } else {
                        refused = r;
                        refusedBatch = batch;
                    }
                }
                assertTrue(refused != null, "the agent never refused a claim on a full disk: " + mount.df());
                assertTrue(acked.size() > 1, "no fresh batch acknowledged before the disk filled: " + mount.df());

                // The refusal names the cause, and is counted under the runbook's kind.
                assertEquals(503, refused.statusCode(), AgentHttp.text(refused));
                assertEquals("1", refused.headers().firstValue("Retry-After").orElse(null));
                JsonObject error = new JsonObject(AgentHttp.text(refused));
                assertEquals("unavailable", error.getString("error"));
                String message = error.getString("message");
                assertTrue(message.contains("disk full?") && message.contains("claims.slots"), message);
                assertTrue(metric(http, "dedup_store_errors_total", "kind=\"unavailable\"") >= 1.0, metrics(http));
                assertTrue(metric(http, "dedup_errors_total", "kind=\"unavailable\"") >= 1.0, metrics(http));
                assertTrue(
                        ProcessHandle.of(agent.pid())
                                .map(ProcessHandle::isAlive)
                                .orElse(false),
                        agent.output());
                assertEquals(200, http.get("/health/live").statusCode());

                // Sent again while the disk is full: refused again, or decided, but never a duplicate of itself.
                for (int i = 0; i < 20; i++) {
                    HttpResponse<byte[]> again = post(http, refusedBatch);
                    if (again.statusCode() == 200) {
                        assertNoDuplicate(refusedBatch, AgentHttp.verdicts(again));
                    } else {
                        assertEquals(503, again.statusCode(), AgentHttp.text(again));
                    }
                }
                // More fresh ids: each batch refused or answered new, never a reply the store did not write.
                acked.addAll(freshWhileFull(http, "more", 200, BATCH));

                // The kernel drops the file's pages; single fresh ids then land in allocated blocks (written through
                // the mapping, whose pages are read back) or are refused, never a fault.
                dropPageCache();
                List<List<Item>> singles = freshWhileFull(http, "single", 2000, 1);
                assertTrue(!singles.isEmpty(), "no single id landed in an allocated block: " + mount.df());
                acked.addAll(singles);

                // Everything acknowledged is still decided, on a full disk: its part of the file exists.
                for (List<Item> batch : acked) {
                    assertHeld(http, batch);
                }
                assertEquals(200, http.get("/health/live").statusCode());

                // Room made, as an operator would: the same agent takes the refused batch.
                Files.delete(ballast);
                List<String> resent = http.claim(NS, refusedBatch);
                assertNoDuplicate(refusedBatch, resent);
                assertTrue(resent.stream().allMatch(v -> v.equals("new") || v.equals("retry")), resent.toString());
                assertEquals(
                        Collections.nCopies(BATCH, "duplicate"),
                        http.claim(NS, withOwner(refusedBatch, "other")),
                        "copies of the batch taken once there was room");

                assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
            }
        }
    }

    @Test
    void killedAgent_restartsOnASmallerTmpfs_withoutMakingItsFileResident() throws Exception {
        try (Mount mount = Mount.of("tmpfs", work)) {
            Path dataDir = mount.dir.resolve("data");
            List<Item> claimed = batch("restart", 1000, "p");
            try (AgentProcess agent =
                    AgentProcess.start(work, "--data-dir", dataDir.toString(), "--embedded-slots", SLOTS)) {
                assertEquals(
                        Collections.nCopies(claimed.size(), "new"), agent.http().claim(NS, claimed));
                agent.kill9();
            }
            long usedBefore = mount.usedKib();

            // Not closed cleanly: the agent counts the file's claims at start, 1 GiB on a smaller mount.
            try (AgentProcess agent =
                    AgentProcess.start(work, "--data-dir", dataDir.toString(), "--embedded-slots", SLOTS)) {
                AgentHttp http = agent.http();
                long grew = mount.usedKib() - usedBefore;
                assertTrue(grew < 8 * 1024, "the start made " + grew + " KiB of the file resident: " + mount.df());
                JsonObject store =
                        new JsonObject(AgentHttp.text(AgentHttp.ok(http.get("/v1/stats")))).getJsonObject("store");
                assertEquals(claimed.size(), store.getLong("occupied_slots"), store.encode());
                assertHeld(http, claimed);
                assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
            }
        }
    }

    @Test
    void onBtrfs_theAgentWarnsThatAFullDiskWouldFaultIt() throws Exception {
        try (Mount mount = Mount.of("btrfs", work)) {
            Path dataDir = mount.dir.resolve("data");
            try (AgentProcess agent =
                    AgentProcess.start(work, "--data-dir", dataDir.toString(), "--embedded-slots", "1048576")) {
                List<Item> batch = batch("cow", 100, "p");
                assertEquals(
                        Collections.nCopies(batch.size(), "new"), agent.http().claim(NS, batch));
                assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
                String output = agent.output();
                assertTrue(
                        output.contains("WARNING") && output.contains("is on btrfs, a copy-on-write file system"),
                        output);
            }
        }
    }

    /**
     * {@code batches} batches of {@code size} fresh ids on a full disk: each refused 503 or answered {@code new}, never
     * a reply the store did not write; returns those answered.
     */
    private static List<List<Item>> freshWhileFull(AgentHttp http, String prefix, int batches, int size) {
        List<List<Item>> taken = new ArrayList<>();
        for (int n = 0; n < batches; n++) {
            List<Item> batch = batch(prefix + "-" + n, size, "p");
            HttpResponse<byte[]> r = post(http, batch);
            if (r.statusCode() == 200) {
                assertEquals(Collections.nCopies(size, "new"), AgentHttp.verdicts(r), "fresh ids, batch " + n);
                taken.add(batch);
            } else {
                assertEquals(503, r.statusCode(), AgentHttp.text(r));
            }
        }
        return taken;
    }

    /** Drops the page cache where this process may (a container's /proc/sys may be read-only), else says so. */
    private static void dropPageCache() throws IOException, InterruptedException {
        run("sync");
        try {
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3\n");
        } catch (IOException e) {
            System.err.println("the page cache could not be dropped (" + e + "): pages stay resident");
        }
    }

    /**
     * A file system of {@code type} mounted on a fresh directory: a 320 MiB tmpfs, or a 320 MiB image (XFS's least)
     * on a loop device; unmounted and removed on close.
     */
    private static final class Mount implements AutoCloseable {

        final Path dir;
        private final Path image;

        private Mount(Path dir, Path image) {
            this.dir = dir;
            this.image = image;
        }

        static Mount of(String type, Path work) throws IOException, InterruptedException {
            Path dir = Files.createTempDirectory("dedup-diskfull-" + type + "-");
            Path image = null;
            String out;
            if (type.equals("tmpfs")) {
                out = run("mount", "-t", "tmpfs", "-o", "size=320m", "tmpfs", dir.toString());
            } else {
                String mkfs = "mkfs." + type;
                boolean found =
                        Files.isExecutable(Path.of("/usr/sbin", mkfs)) || Files.isExecutable(Path.of("/sbin", mkfs));
                if (!found) {
                    Files.delete(dir);
                }
                assumeTrue(found, mkfs + " is not installed (" + PACKAGES.get(type) + ")");
                image = work.resolve(type + ".img");
                run("truncate", "-s", "320M", image.toString());
                // ext4 without blocks reserved for root: the agent runs as root and would fill them too
                out = type.equals("ext4")
                        ? run(mkfs, "-F", "-q", "-m", "0", image.toString())
                        : run(mkfs, "-f", "-q", image.toString());
                out += run("mount", "-o", "loop", image.toString(), dir.toString());
            }
            Mount mount = new Mount(dir, image);
            if (!mount.mounted(type)) {
                mount.close();
                assumeTrue(false, "cannot mount a " + type + ": " + out);
            }
            return mount;
        }

        private boolean mounted(String type) throws IOException {
            String real = dir.toRealPath().toString();
            return Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                    .map(line -> line.split(" "))
                    .anyMatch(f -> f.length > 2 && f[1].equals(real) && f[2].equals(type));
        }

        long availableKib() throws IOException, InterruptedException {
            return dfField("avail");
        }

        long usedKib() throws IOException, InterruptedException {
            return dfField("used");
        }

        private long dfField(String field) throws IOException, InterruptedException {
            String[] lines =
                    run("df", "-k", "--output=" + field, dir.toString()).strip().split("\n");
            return Long.parseLong(lines[lines.length - 1].strip());
        }

        String df() throws IOException, InterruptedException {
            return run("df", "-k", dir.toString());
        }

        @Override
        public void close() throws IOException, InterruptedException {
            run("umount", dir.toString());
            if (Files.readAllLines(Path.of("/proc/self/mounts")).stream().anyMatch(l -> l.contains(dir.toString()))) {
                run("umount", "-l", dir.toString());
            }
            Files.deleteIfExists(dir);
            if (image != null) {
                Files.deleteIfExists(image);
            }
        }
    }

    private static List<Item> batch(String prefix, int size, String owner) {
        return IntStream.range(0, size)
                .mapToObj(i -> new Item(prefix + "-" + i, owner))
                .toList();
    }

    private static List<Item> withOwner(List<Item> items, String owner) {
        return items.stream().map(i -> new Item(i.id(), owner)).toList();
    }

    private static HttpResponse<byte[]> post(AgentHttp http, List<Item> items) {
        return http.post("/v1/claims", AgentHttp.BINARY, BatchEncoder.binary(NS, items));
    }

    /** {@code batch} is still claimed by its owner: {@code retry} to the owner's resend, {@code duplicate} to others. */
    private static void assertHeld(AgentHttp http, List<Item> batch) {
        assertEquals(Collections.nCopies(batch.size(), "retry"), http.claim(NS, batch), "owner's resend");
        assertEquals(
                Collections.nCopies(batch.size(), "duplicate"),
                http.claim(NS, withOwner(batch, "other")),
                "another owner's copies");
    }

    /** Nobody else claimed these ids: {@code duplicate} for any of them would drop a record. */
    private static void assertNoDuplicate(List<Item> items, List<String> verdicts) {
        List<String> wrong = new ArrayList<>();
        for (int i = 0; i < verdicts.size(); i++) {
            if (verdicts.get(i).equals("duplicate")) {
                wrong.add(items.get(i).id());
            }
        }
        assertEquals(List.of(), wrong, "ids answered duplicate to their own owner");
    }

    private static double metric(AgentHttp http, String name, String labels) {
        double sum = 0;
        for (String line : AgentHttp.text(AgentHttp.ok(http.get("/metrics"))).split("\n")) {
            if (line.startsWith(name + "{") && line.contains(labels)) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    private static String metrics(AgentHttp http) {
        StringBuilder out = new StringBuilder();
        for (String line : AgentHttp.text(http.get("/metrics")).split("\n")) {
            if (line.contains("errors_total")) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    /** Runs a command; returns its output, whatever its exit code. */
    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", cmd) + " did not finish");
        }
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
}
