package dev.dedup.agent.store.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.FakeClock;
import dev.dedup.agent.testing.RedisShards;
import dev.dedup.wire.Item;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Concurrent batches whose script calls the agent merges on a busy shard ({@code CallGathering}), on real
 * redis-servers, in both layouts: every id offered by several workers at once, each with its own owner, is
 * answered {@code new} exactly once and {@code duplicate} to every other worker; ids repeated inside one
 * batch are decided in the batch's order; and calls did go out merged.
 */
class RedisCallGatheringIT {

    private static final int WORKERS = 8;
    private static final int ROUNDS = 60;
    private static final int BATCH = 500;

    @org.junit.jupiter.api.io.TempDir
    Path dir;

    @RegisterExtension
    final RedisShards shards = new RedisShards(2, () -> dir);

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void everyIdIsNewOnceAcrossConcurrentBatches_andCallsAreMerged(boolean eventTime) throws Exception {
        WindowOptions windows = eventTime
                ? new WindowOptions(RedisTier.WINDOW, Map.of(), Map.of(RedisTier.NS, 33_334))
                : new WindowOptions(RedisTier.WINDOW, Map.of());
        long second = RedisTier.EPOCH / 1000 - 60;
        try (Agent agent = RedisTier.agent(
                dir,
                shards,
                RedisTier.Layout.defaults(Duration.ofSeconds(5)).withWindows(windows),
                0,
                new FakeClock(RedisTier.EPOCH))) {
            Map<String, AtomicInteger> fresh = new ConcurrentHashMap<>();
            List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
            ExecutorService pool = Executors.newFixedThreadPool(WORKERS);
            try {
                List<Future<?>> running = new ArrayList<>();
                for (int w = 0; w < WORKERS; w++) {
                    int worker = w;
                    running.add(pool.submit(() -> {
                        AgentHttp http = new AgentHttp(agent.port());
                        for (int round = 0; round < ROUNDS; round++) {
                            // Worker w's batch shares half its ids with worker w+1's batch of the same round.
                            List<Item> batch = new ArrayList<>(BATCH + 1);
                            for (int i = 0; i < BATCH; i++) {
                                int group = i < BATCH / 2 ? worker : (worker + 1) % WORKERS;
                                String id = "r" + round + "-g" + group + "-" + (i % (BATCH / 2));
                                batch.add(new Item(id, "w" + worker, second + round % 30));
                            }
                            batch.add(batch.get(0)); // the same id and owner again, last in the batch
                            List<String> verdicts = http.claim(RedisTier.NS, batch);
                            for (int i = 0; i < BATCH; i++) {
                                switch (verdicts.get(i)) {
                                    case "new" ->
                                        fresh.computeIfAbsent(batch.get(i).id(), k -> new AtomicInteger())
                                                .incrementAndGet();
                                    case "duplicate" -> {}
                                    default -> wrong.add(batch.get(i) + " answered " + verdicts.get(i));
                                }
                            }
                            if (!verdicts.get(BATCH).equals(verdicts.get(0).equals("new") ? "retry" : "duplicate")) {
                                wrong.add("the repeat of " + batch.get(0) + " answered " + verdicts.get(BATCH)
                                        + " after " + verdicts.get(0));
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : running) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(List.of(), wrong.subList(0, Math.min(10, wrong.size())));
            int ids = ROUNDS * WORKERS * (BATCH / 2);
            assertEquals(ids, fresh.size(), "every id answered new to one worker");
            List<String> twice = fresh.entrySet().stream()
                    .filter(e -> e.getValue().get() != 1)
                    .map(Map.Entry::getKey)
                    .limit(10)
                    .toList();
            assertEquals(List.of(), twice, "ids answered new to two workers");
            double gathered = RedisTier.metric(new AgentHttp(agent.port()), "dedup_redis_calls_gathered_total", "");
            System.out.printf("call gathering (event time %s): %.0f calls went out merged%n", eventTime, gathered);
            assertTrue(gathered > 0, "concurrent batches' calls were merged on a busy shard");
        }
    }
}
