package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.ConsumerMember;
import dev.dedup.examples.testing.Members;
import dev.dedup.examples.testing.PipelineRun;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.Stack.Store;
import dev.dedup.examples.testing.Traffic;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The library's {@link dev.dedup.kafka.DedupConsumerLoop} (a {@code KafkaConsumer} group: claim, process, commit)
 * against a real KRaft broker, the real agent jar (embedded store on one node; two Redis shards with two agents and
 * two consumers) and a real PostgreSQL sink, under the faults such pipelines have. Each test ends with the sink compared to the ground
 * truth: 0 lost, 0 counted twice.
 */
class ConsumerPipelineIT {

    private static final int UNIQUE = 2_500;
    private static final int PARTITIONS = 4;
    private static final Duration PRODUCE_OVER = Duration.ofSeconds(8);

    @RegisterExtension
    static final Services services = Services.kafka("consumer-pipeline");

    /** A processing failure: the loop releases the batch's claims and reads it again; the redelivery is new. */
    @ParameterizedTest
    @EnumSource(Store.class)
    void processingFailureReleasesClaimsAndTheRedeliveryIsCounted(Store store) throws Exception {
        try (Run run = new Run("failures", store)) {
            run.start(0, "fail=20");
            run.start(1, "fail=20");
            run.awaitSinkCaughtUp();
            Members.Counts counts = run.finish();
            assertTrue(counts.released() > 0, "some claims released: " + counts);
        }
    }

    /**
     * {@code kill -9} between writing a batch's output and committing its offsets, then a restart: the consumer
     * reads the batch again, the agent answers retry (same owners), and the offsets kept in the sink's transaction
     * keep the counts exact.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void consumerKilledBetweenOutputAndOffsetCommitRestarts(Store store) throws Exception {
        try (Run run = new Run("kill9", store)) {
            Members.Counts counts = run.killedBeforeCommit(run.stack.workers(1) > 1, true);
            assertTrue(counts.retried() > 0, "the re-read batch answered retry: " + counts);
        }
    }

    /**
     * The same kill, with the sink telling the loop its stored offsets ({@code TransactionalSink.storedOffsets}): the
     * restarted consumer seeks past the batch whose output was written and not committed, so nothing is read again.
     */
    @Test
    void consumerKilledBeforeItsOffsetCommitResumesWhereTheSinksOffsetsEnd() throws Exception {
        try (Run run = new Run("resume", Store.EMBEDDED)) {
            Members.Counts counts = run.killedBeforeCommit(false, true, "resumeFromSink");
            assertEquals(0, counts.retried(), "the written batch was not read again: " + counts);
        }
    }

    /**
     * The same kill with the library's ready {@code JdbcSink} (offsets in its own table, the example's rows written by
     * its writer), two members on their agents: the restarted member reads the batch again from Kafka's offsets, it is
     * answered retry, and the sink skips what its offsets say it applied.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void readyJdbcSinkConsumerKilledBetweenOutputAndOffsetCommit(Store store) throws Exception {
        try (Run run = new Run("jdbc-kill9", store)) {
            Members.Counts counts = run.killedBeforeCommit(true, true, "jdbcSink");
            assertTrue(counts.retried() > 0, "the re-read batch answered retry: " + counts);
        }
    }

    /** The agent killed ({@code kill -9}) mid-stream and restarted: workers wait for it, nothing is skipped. */
    @ParameterizedTest
    @EnumSource(Store.class)
    void agentKilledAndRestartedMidStream(Store store) throws Exception {
        try (Run run = new Run("agent-restart", store)) {
            run.midStream(() -> run.stack.restartAgent(0, Duration.ofSeconds(1)));
        }
    }

    /** A Redis shard killed mid-stream and restarted with its append-only file: 503s meanwhile, then every claim. */
    @Test
    void redisShardRestartedWithItsAof() throws Exception {
        try (Run run = new Run("redis-restart", Store.REDIS)) {
            run.midStream(() -> run.stack.restartShard(0, Duration.ofSeconds(1)));
        }
    }

    /**
     * A rebalance: consumer A is killed after writing a batch and before committing it; its partitions move to B
     * (on another agent with Redis). B re-reads A's uncommitted records: the owner is where the copy sits
     * ({@code topic:partition:offset}), not who reads it, so they are retry (never duplicate) whether or not A's output
     * was written; the sink's offsets tell which was. Only the other copies of a message are duplicate.
     */
    @ParameterizedTest
    @EnumSource(Store.class)
    void rebalanceMovesPartitionsToAnotherConsumer(Store store) throws Exception {
        try (Run run = new Run("rebalance", store)) {
            Members.Counts counts = run.killedBeforeCommit(true, false);
            assertTrue(counts.retried() > 0, "B re-read A's uncommitted batch as retry: " + counts);
        }
    }

    /** One test's pipeline: a topic, a database, the agents, the members; all stopped at the end. */
    private static final class Run extends PipelineRun {
        /** The members keep their offsets with the ready JdbcSink, in its table, instead of the example's. */
        boolean jdbcSink;

        Run(String scenario, Store store) throws Exception {
            super(
                    services.broker(),
                    services.dir().resolve(scenario + "-" + store.name().toLowerCase()),
                    scenario + "/" + store.name().toLowerCase(),
                    store,
                    Traffic.generate(UNIQUE, PARTITIONS, scenario.hashCode() * 31L + store.ordinal()),
                    "consumer-" + scenario + "-" + store.name().toLowerCase(),
                    true,
                    PRODUCE_OVER);
        }

        ChildJvm start(int worker, String... faults) throws Exception {
            jdbcSink |= List.of(faults).contains("jdbcSink");
            List<String> args =
                    new ArrayList<>(List.of(broker.bootstrap(), topic, "group-" + topic, db.url(), "clicks"));
            args.addAll(List.of(faults));
            return startMember("member-" + worker, ConsumerMember.class.getName(), args, stack.agentFor(worker));
        }

        /**
         * Member 0 killed ({@code kill -9}) after writing its third batch and before committing it, member 1 beside it
         * if {@code beside}, member 0 started again if {@code restarted}, each with {@code options}; then the sink
         * caught up and checked. The members' verdicts.
         */
        Members.Counts killedBeforeCommit(boolean beside, boolean restarted, String... options) throws Exception {
            List<String> pausing = new ArrayList<>(List.of(options));
            pausing.add("pauseBeforeCommit=3");
            ChildJvm a = start(0, pausing.toArray(String[]::new));
            if (beside) {
                start(1, options);
            }
            killWhenPaused(a, Duration.ofSeconds(60));
            if (restarted) {
                start(0, options);
            }
            awaitSinkCaughtUp();
            return finish();
        }

        /** Two members; {@code fault} once a quarter of the messages is applied; then the sink caught up and checked. */
        void midStream(Fault fault) throws Exception {
            start(0);
            start(1);
            awaitApplied(UNIQUE / 4);
            fault.inject();
            awaitSinkCaughtUp();
            finish();
        }

        void awaitApplied(int applied) throws Exception {
            if (!await(
                    Duration.ofSeconds(60),
                    Duration.ofMillis(50),
                    () -> Sink.applied(db).size() >= applied)) {
                throw new AssertionError(name + ": fewer than " + applied + " applied after 60 s");
            }
        }

        /** Until the offsets in the sink reach the end of every partition. */
        void awaitSinkCaughtUp() throws Exception {
            records();
            Map<TopicPartition, Long> end = broker.endOffsets(topic, PARTITIONS);
            Map<Integer, Long> seen = new HashMap<>();
            boolean caughtUp = await(Duration.ofSeconds(120), Duration.ofMillis(100), () -> {
                seen.clear();
                seen.putAll(sinkOffsets());
                return end.entrySet().stream()
                        .allMatch(e -> seen.getOrDefault(e.getKey().partition(), 0L) >= e.getValue());
            });
            if (!caughtUp) {
                throw new AssertionError(name + ": sink at " + seen + ", topic ends at " + end + "\n" + logs());
            }
        }

        /** The next offset per partition that the sink's transactions stored. */
        private Map<Integer, Long> sinkOffsets() throws Exception {
            Map<Integer, Long> offsets = new HashMap<>();
            try (Connection c = db.connect();
                    PreparedStatement s = c.prepareStatement(
                            jdbcSink
                                    ? "SELECT kafka_partition, next_offset FROM stream_offsets WHERE topic = ?"
                                    : "SELECT kafka_partition, next_offset FROM sink_offsets WHERE topic = ?")) {
                s.setString(1, topic);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        offsets.put(rs.getInt(1), rs.getLong(2));
                    }
                }
            }
            return offsets;
        }

        /** Stops the members, compares the sink with the ground truth, reports. */
        Members.Counts finish() throws Exception {
            for (ChildJvm m : members) {
                m.terminate(Duration.ofSeconds(15));
            }
            Sink.Check check = Sink.check(db, traffic);
            Members.Counts counts = counts();
            Report.line(String.format(
                    "consumer %-24s %s: %s; verdicts: %s; %.1f s", name, written(), check, counts, seconds()));
            assertExact(check);
            return counts;
        }
    }
}
