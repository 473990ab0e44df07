package dev.dedup.agent.ranges;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.testing.AgentUnderTest;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.SequenceRange;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consumer of an ordered stream (a Kinesis shard: sparse 56-digit sequence numbers) reading 1,000,000
 * records in batches through the Java client, the way docs/api.md tells it to: check the batch's range,
 * drop the records already done, process the rest, write the output, commit the range. Workers crash at
 * random points (before processing, between writing the output and committing, after committing) and the
 * next one resumes from a stale checkpoint; the agent itself is restarted halfway.
 *
 * <p>The output must hold every record, and a record more than once only where a worker crashed between
 * writing it and committing it (the contract says such a batch is processed again): the test counts those
 * and requires every other record exactly once.
 */
class RangeConsumerSimulationIT {

    private static final int RECORDS = Integer.getInteger("ranges.simulation.records", 1_000_000);
    private static final int BATCH = 500;
    /** The checkpoint is written every this many batches, so a resumed worker starts before where it was. */
    private static final int CHECKPOINT_EVERY = 7;

    private static final BigInteger BASE = new BigInteger("49590338271490256608559692538361571095921575989136588898");

    @TempDir
    Path dir;

    private static BigInteger seq(int i) {
        return BASE.add(BigInteger.valueOf(10L * i + (i % 7))); // sparse, like Kinesis
    }

    @Test
    void onTheEmbeddedStore_everyRecordIsOutputOnce_exceptBatchesCrashedBetweenOutputAndCommit() throws Exception {
        simulate(() -> options(RedisOptions.none()));
    }

    @Test
    void onRedis_everyRecordIsOutputOnce_exceptBatchesCrashedBetweenOutputAndCommit() throws Exception {
        try (RedisServer redis = RedisServer.startWithAof(dir.resolve("redis"))) {
            simulate(() -> options(RedisOptions.builder(List.of(redis.uri()))
                    .timeout(Duration.ofSeconds(5))
                    .build()));
        }
    }

    private AgentOptions options(RedisOptions redis) {
        return AgentUnderTest.options(
                AgentUnderTest.bulkHttp().build(), dir.resolve("embedded"), WindowOptions.defaults(), redis, 1 << 16);
    }

    private void simulate(java.util.function.Supplier<AgentOptions> options) throws Exception {
        int[] output = new int[RECORDS];
        int[] expectedExtra = new int[RECORDS];
        SplittableRandom random = new SplittableRandom(42);
        int checkpoint = 0; // the first record a resumed worker reads
        int crashesBeforeProcessing = 0;
        int crashesBetweenOutputAndCommit = 0;
        int crashesAfterCommit = 0;
        int batchesSkippedWhole = 0;
        Agent agent = Agent.start(options.get());
        boolean restarted = false;
        try {
            int position = checkpoint;
            int batchesSinceCheckpoint = 0;
            DedupClient client = DedupClient.create(URI.create("http://127.0.0.1:" + agent.port()));
            while (position < RECORDS) {
                if (!restarted && position >= RECORDS / 2) {
                    agent.close(); // the sidecar restarts: what was committed must still be known
                    agent = Agent.start(options.get());
                    client = DedupClient.create(URI.create("http://127.0.0.1:" + agent.port()));
                    restarted = true;
                }
                int end = Math.min(RECORDS, position + BATCH);
                SequenceRange range = new SequenceRange(
                        position == 0 ? seq(0) : seq(position - 1).add(BigInteger.ONE), seq(end - 1));
                List<SequenceRange> done = client.checkRanges("orders", "shardId-000000000003", List.of(range))
                        .get(0);
                int roll = random.nextInt(100);
                if (roll < 2) { // crash before processing anything
                    crashesBeforeProcessing++;
                    position = checkpoint;
                    batchesSinceCheckpoint = 0;
                    continue;
                }
                int processed = 0;
                for (int i = position; i < end; i++) {
                    if (!isDone(done, seq(i))) {
                        output[i]++; // the output, written durably as one transaction with the batch
                        processed++;
                    }
                }
                if (processed == 0) {
                    batchesSkippedWhole++;
                }
                if (roll < 4) { // crash after the output, before the commit: the batch comes again
                    crashesBetweenOutputAndCommit++;
                    for (int i = position; i < end; i++) {
                        if (!isDone(done, seq(i))) {
                            expectedExtra[i]++;
                        }
                    }
                    position = checkpoint;
                    batchesSinceCheckpoint = 0;
                    continue;
                }
                commit(client, range);
                if (roll < 6) { // crash after the commit
                    crashesAfterCommit++;
                    position = checkpoint;
                    batchesSinceCheckpoint = 0;
                    continue;
                }
                position = end;
                if (++batchesSinceCheckpoint == CHECKPOINT_EVERY) {
                    checkpoint = position;
                    batchesSinceCheckpoint = 0;
                }
            }
        } finally {
            agent.close();
        }
        int lost = 0;
        int twice = 0;
        int unexplained = 0;
        for (int i = 0; i < RECORDS; i++) {
            if (output[i] == 0) {
                lost++;
            }
            twice += Math.max(0, output[i] - 1);
            if (output[i] != 1 + expectedExtra[i]) {
                unexplained++;
            }
        }
        System.out.printf(
                "ranges simulation: %,d records in batches of %d; crashes: %d before processing, %d between"
                        + " output and commit, %d after commit; %,d records output again (all from crashes between"
                        + " output and commit), %d lost, %d unexplained; %d batches found whole in done ranges%n",
                RECORDS,
                BATCH,
                crashesBeforeProcessing,
                crashesBetweenOutputAndCommit,
                crashesAfterCommit,
                twice,
                lost,
                unexplained,
                batchesSkippedWhole);
        assertEquals(0, lost, "records never output");
        assertEquals(0, unexplained, "records output a number of times the crashes do not explain");
        assertTrue(
                crashesBetweenOutputAndCommit > 10 && crashesAfterCommit > 10 && crashesBeforeProcessing > 10,
                "every kind of crash happened");
        assertTrue(batchesSkippedWhole > 0, "resumed workers found committed batches and skipped them");
    }

    private static void commit(DedupClient client, SequenceRange range) throws IOException {
        client.commitRanges("orders", "shardId-000000000003", List.of(range));
    }

    private static boolean isDone(List<SequenceRange> done, BigInteger seq) {
        for (SequenceRange r : done) {
            if (r.contains(seq)) {
                return true;
            }
        }
        return false;
    }
}
