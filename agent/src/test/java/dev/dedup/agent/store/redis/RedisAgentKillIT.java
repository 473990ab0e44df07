package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Item;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real agent jar on Redis is killed with SIGKILL while batches are in flight; a new agent on the same
 * shards gets every batch again, as a worker would resend them. Fault questions: no item may be
 * answered {@code duplicate} when resent by its own owner (nobody else claimed it), and every copy by
 * another owner of an item claimed before the kill must be {@code duplicate}.
 */
class RedisAgentKillIT {

    @TempDir
    Path work;

    private static List<Item> batch(int n, String owner) {
        return IntStream.range(0, 500)
                .mapToObj(i -> new Item("kill-" + n + "-" + i, owner + n + ":" + i))
                .toList();
    }

    @Test
    void kill9MidLoad_resentBatchesAreNewOrRetry_neverDuplicate_andCopiesOfAnsweredOnesAreDuplicates()
            throws Exception {
        try (RedisServer s1 = RedisServer.start(work.resolve("r1"));
                RedisServer s2 = RedisServer.start(work.resolve("r2"))) {
            String[] args = {"--redis", s1.uri() + "," + s2.uri()};
            Map<Integer, Boolean> answered = new ConcurrentHashMap<>();
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger next = new AtomicInteger();
            try (AgentProcess agent = AgentProcess.start(work.resolve("a1"), args)) {
                AgentHttp http = agent.http();
                Runnable sender = () -> {
                    while (!stop.get()) {
                        int n = next.getAndIncrement();
                        try {
                            HttpResponse<byte[]> r =
                                    http.post("/v1/claims", AgentHttp.BINARY, BatchEncoder.binary("t", batch(n, "p")));
                            if (r.statusCode() == 200) {
                                assertTrue(AgentHttp.verdicts(r).stream().allMatch("new"::equals));
                                answered.put(n, true);
                            }
                        } catch (RuntimeException connectionLost) {
                            return;
                        }
                    }
                };
                Thread t1 = new Thread(sender);
                Thread t2 = new Thread(sender);
                t1.start();
                t2.start();
                while (answered.size() < 30) {
                    Thread.sleep(5);
                }
                agent.kill9();
                stop.set(true);
                t1.join(10_000);
                t2.join(10_000);
            }
            int sent = next.get();
            try (AgentProcess agent = AgentProcess.start(work.resolve("a2"), args)) {
                int retried = 0;
                for (int n = 0; n < sent; n++) {
                    List<String> verdicts = agent.http().claim("t", batch(n, "p"));
                    assertTrue(verdicts.stream().noneMatch("duplicate"::equals), "false duplicate in batch " + n);
                    if (answered.containsKey(n)) {
                        assertTrue(verdicts.stream().allMatch("retry"::equals), "answered batch " + n + " forgotten");
                        retried++;
                    }
                    List<String> copies = agent.http().claim("t", batch(n, "copy"));
                    assertTrue(
                            copies.stream().allMatch("duplicate"::equals),
                            "a copy by another owner slipped through in batch " + n);
                }
                assertEquals(answered.size(), retried);
            }
        }
    }
}
