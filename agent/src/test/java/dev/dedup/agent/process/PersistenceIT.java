package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The real jar, restarted gracefully and killed with {@code kill -9}: claims on the embedded store survive both. */
class PersistenceIT {

    private static final String[] SMALL = {"--embedded-slots", "1000000"};

    @TempDir
    Path work;

    private static List<Item> batch(int batchNo, int size, String owner) {
        return IntStream.range(0, size)
                .mapToObj(i -> new Item("id-" + batchNo + "-" + i, owner + batchNo + ":" + i))
                .toList();
    }

    @Test
    void sigtermExitsZero_andRestartRemembersEveryClaim() throws Exception {
        List<Item> items = batch(0, 5000, "p");
        try (AgentProcess agent = AgentProcess.start(work, SMALL)) {
            assertTrue(agent.http().claim("t", items).stream().allMatch("new"::equals));
            assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
            assertTrue(agent.output().contains("stopped"), agent.output());
        }
        try (AgentProcess agent = AgentProcess.start(work, SMALL)) {
            assertTrue(agent.http().claim("t", items).stream().allMatch("retry"::equals));
            List<Item> otherOwners =
                    items.stream().map(i -> new Item(i.id(), "other")).toList();
            assertTrue(agent.http().claim("t", otherOwners).stream().allMatch("duplicate"::equals));
        }
    }

    /**
     * Batches are sent without pause while the agent is killed with SIGKILL. After a restart the worker
     * resends everything: no item may be {@code duplicate} (nobody else claimed them), and every item whose
     * batch was answered before the kill must be {@code retry} (its claim survived in the mapped file).
     */
    @Test
    void kill9MidLoad_resendAnswersNoFalseDuplicate_andAnsweredClaimsSurvive() throws Exception {
        Map<Integer, Boolean> answered = new ConcurrentHashMap<>();
        AtomicBoolean stop = new AtomicBoolean();
        int sent;
        try (AgentProcess agent = AgentProcess.start(work, SMALL)) {
            AgentHttp http = agent.http();
            int[] next = {0};
            Thread sender = new Thread(() -> {
                while (!stop.get()) {
                    int n = next[0]++;
                    try {
                        HttpResponse<byte[]> r = http.post(
                                "/v1/claims", AgentHttp.BINARY, BatchEncoder.binary("t", batch(n, 1000, "p")));
                        if (r.statusCode() == 200) {
                            assertTrue(AgentHttp.verdicts(r).stream().allMatch("new"::equals));
                            answered.put(n, true);
                        }
                    } catch (RuntimeException connectionLost) {
                        return;
                    }
                }
            });
            sender.start();
            while (answered.size() < 20) {
                Thread.sleep(5);
            }
            agent.kill9();
            stop.set(true);
            sender.join(10_000);
            sent = next[0];
        }
        try (AgentProcess agent = AgentProcess.start(work, SMALL)) {
            int retried = 0;
            for (int n = 0; n < sent; n++) {
                List<String> verdicts = agent.http().claim("t", batch(n, 1000, "p"));
                assertTrue(verdicts.stream().noneMatch("duplicate"::equals), "false duplicate in batch " + n);
                if (answered.containsKey(n)) {
                    assertTrue(verdicts.stream().allMatch("retry"::equals), "answered batch " + n + " was forgotten");
                    retried++;
                }
            }
            assertEquals(answered.size(), retried);
        }
    }

    @Test
    void badSettingStopsTheStartWithOneLineNamingIt() throws Exception {
        try (AgentProcess agent = AgentProcess.launch(work, "--window", "forever")) {
            assertEquals(2, agent.awaitExit(Duration.ofSeconds(30)));
            String out = agent.output().strip();
            assertTrue(out.contains("--window") && out.contains("forever"), out);
            assertEquals(1, out.lines().count(), out);
        }
    }

    @Test
    void storeFileOfAnotherCapacityIsRefusedClearly() throws Exception {
        try (AgentProcess agent = AgentProcess.start(work, SMALL)) {
            assertEquals(0, agent.terminate(Duration.ofSeconds(30)));
        }
        try (AgentProcess agent = AgentProcess.launch(work, "--embedded-slots", "2000000")) {
            assertEquals(1, agent.awaitExit(Duration.ofSeconds(30)));
            assertTrue(agent.output().contains("embedded-slots"), agent.output());
        }
    }

    @Test
    void secondAgentOnTheSameDataDirIsRefused() throws Exception {
        try (AgentProcess first = AgentProcess.start(work, SMALL);
                AgentProcess second = AgentProcess.launch(work, SMALL)) {
            assertEquals(1, second.awaitExit(Duration.ofSeconds(30)));
            assertTrue(second.output().contains("another agent"), second.output());
            assertEquals(200, first.http().get("/health/ready").statusCode());
        }
    }
}
