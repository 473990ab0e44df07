package dev.dedup.examples.spark;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.testing.PipelineRun;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.SparkDiagnostics;
import dev.dedup.examples.testing.SparkFixture;
import dev.dedup.examples.testing.SparkLocal;
import dev.dedup.examples.testing.Stack.Store;
import dev.dedup.examples.testing.TaskFailures;
import dev.dedup.examples.testing.Traffic;
import dev.dedup.spark.VerdictCounts;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The example {@link SparkDedupJob} (Kafka → Spark micro-batches → claim → aggregate → PostgreSQL) against a real
 * KRaft broker, Spark in local mode, the agent jar (one node with the embedded store; two Redis shards with two
 * agents, a task taking its partition's agent) and PostgreSQL, under faults. Each test ends with the sink compared
 * to the ground truth: 0 lost, 0 counted twice.
 */
class SparkPipelineIT {

    static final int UNIQUE = 4_000;
    static final int PARTITIONS = 4;

    @RegisterExtension
    static final Services services = Services.kafka("spark-pipeline");

    @RegisterExtension
    static final SparkFixture spark = new SparkFixture();

    /** {@link TaskFailures#failFirstAttemptOfEvenPartitions()}: the retried tasks get retry. */
    @ParameterizedTest
    @EnumSource(Store.class)
    void taskFailingAfterClaimingIsRetriedAndGetsRetry(Store store) throws Exception {
        try (Run run = new Run("task-failures", store)) {
            run.run(TaskFailures.failFirstAttemptOfEvenPartitions(), () -> {});
            assertTrue(run.job.verdicts().retried() > 0, "retried tasks answered retry");
        }
    }

    /** The agent killed mid-stream and restarted: tasks wait for it (then Spark retries them); nothing skipped. */
    @ParameterizedTest
    @EnumSource(Store.class)
    void agentKilledAndRestartedMidStream(Store store) throws Exception {
        try (Run run = new Run("agent-restart", store)) {
            run.run(UnaryOperator.identity(), () -> {
                run.awaitBatch(2);
                run.stack.restartAgent(0, Duration.ofMillis(1500));
            });
        }
    }

    /** A Redis shard killed mid-stream and restarted with its AOF: claims wait out the 503s; every claim kept. */
    @Test
    void redisShardRestartedWithItsAof() throws Exception {
        try (Run run = new Run("redis-restart", Store.REDIS)) {
            run.run(UnaryOperator.identity(), () -> {
                run.awaitBatch(2);
                run.stack.restartShard(0, Duration.ofMillis(1500));
            });
        }
    }

    /** One test's pipeline: a topic holding the traffic, a database, the agents, one streaming query. */
    static final class Run extends PipelineRun {
        SparkDedupJob job;

        Run(String scenario, Store store) throws Exception {
            super(
                    services.broker(),
                    services.dir().resolve(scenario + "-" + store),
                    scenario + "/" + store.name().toLowerCase(),
                    store,
                    Traffic.generate(UNIQUE, PARTITIONS, scenario.hashCode() * 17L + store.ordinal()),
                    "spark-" + scenario + "-" + store.name().toLowerCase(),
                    true,
                    Duration.ZERO);
        }

        void run(UnaryOperator<Dataset<Row>> process, Fault fault) throws Exception {
            List<URI> agents = stack.agents().stream().map(a -> a.uri()).toList();
            job = new SparkDedupJob(
                    SparkLocal.jobOptions(
                            broker.bootstrap(),
                            topic,
                            dir.resolve("checkpoint").toString(),
                            topic,
                            agents,
                            "clicks",
                            600),
                    new AggregateSink(db.url(), Sink.AUDIT));
            SparkDiagnostics diagnostics = new SparkDiagnostics(spark.session(), topic);
            StreamingQuery q;
            try {
                q = job.start(spark.session(), diagnostics.observe(process));
                CompletableFuture<Void> injected = CompletableFuture.runAsync(() -> {
                    try {
                        fault.inject();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                boolean ended = q.awaitTermination(180_000);
                injected.get();
                if (q.exception().isDefined()) {
                    throw q.exception().get();
                }
                List<SparkDiagnostics.Batch> batches = SparkDiagnostics.batches(q);
                Map<Integer, Long> consumed = SparkDiagnostics.consumedUpTo(batches);
                Map<Integer, Long> end = new TreeMap<>();
                broker.endOffsets(topic, PARTITIONS).forEach((tp, o) -> end.put(tp.partition(), o));
                Set<String> lost = new HashSet<>();
                Sink.Check check = Sink.check(db, traffic, lost::addAll);
                List<String> problems = new ArrayList<>();
                if (!ended) {
                    problems.add("the query had not ended after 180 s (active: " + q.isActive() + ")");
                }
                long held = end.values().stream().mapToLong(Long::longValue).sum();
                if (held != traffic.copies().size()) {
                    problems.add("the topic holds " + held + " records, the test wrote "
                            + traffic.copies().size());
                }
                if (!consumed.equals(end)) {
                    problems.add("the query consumed up to " + consumed + ", the topic ends at " + end);
                }
                VerdictCounts v = job.verdicts();
                long claimed = v.total();
                if (claimed < held) {
                    // every record is claimed by at least one successful task attempt (more if a cached partition
                    // is computed again): fewer verdicts than records means records no successful task read
                    problems.add("successful tasks claimed " + claimed + " records of " + held);
                }
                if (!check.exact()) {
                    problems.add(check.toString());
                }
                if (!problems.isEmpty()) {
                    q.stop();
                    String explained = String.join("; ", problems) + "\n" + diagnostics.describe(batches)
                            + "sink writes: " + Sink.writes(db) + "\n" + whereLost(lost, batches, diagnostics)
                            + "lost by kind " + Sink.byKind(traffic, lost);
                    throw failed(explained, explained);
                }
                Report.line(String.format(
                        "spark    %-24s %s: %s; verdicts: new %d, retry %d, duplicate %d; %d batches; %.1f s",
                        name, copies(), check, v.fresh(), v.retried(), v.duplicates(), batches.size(), seconds()));
            } finally {
                diagnostics.close();
            }
        }

        /** Per lost id, where its copies sat, which batch planned them and what that batch's tasks kept. */
        String whereLost(Set<String> lost, List<SparkDiagnostics.Batch> batches, SparkDiagnostics diagnostics) {
            StringBuilder b = new StringBuilder();
            int shown = 0;
            for (int i = 0; i < traffic.copies().size() && shown < 40; i++) {
                Traffic.Copy c = traffic.copies().get(i);
                if (!lost.contains(c.message().id())) {
                    continue;
                }
                shown++;
                long offset = traffic.offset(i);
                String batch = batches.stream()
                        .filter(x -> {
                            long[] r = x.ranges().get(c.partition());
                            return r != null && r[0] <= offset && offset < r[1];
                        })
                        .map(x -> String.valueOf(x.id()))
                        .findFirst()
                        .orElse("none");
                b.append("lost ")
                        .append(c.kind())
                        .append(' ')
                        .append(c.message().id())
                        .append(" at ")
                        .append(c.partition())
                        .append(':')
                        .append(offset < 0 ? "never written" : String.valueOf(offset))
                        .append(", batch ")
                        .append(batch)
                        .append(", kept by ");
                diagnostics.kept().stream()
                        .filter(k -> batch.equals(k.batch()) && k.kafkaPartition() == c.partition())
                        .forEach(k -> b.append(k).append(' '));
                b.append('\n');
            }
            return b.toString();
        }

        void awaitBatch(long batch) throws Exception {
            boolean written = await(Duration.ofSeconds(120), Duration.ofMillis(20), () -> {
                try (Connection c = db.connect();
                        ResultSet rs = c.createStatement().executeQuery("SELECT max(last_batch) FROM sink_batches")) {
                    rs.next();
                    return rs.getObject(1) != null && rs.getLong(1) >= batch;
                }
            });
            if (!written) {
                throw new AssertionError(name + ": batch " + batch + " not written");
            }
        }

        @Override
        public void close() throws Exception {
            for (StreamingQuery q : spark.session().streams().active()) {
                q.stop();
            }
            super.close();
        }
    }
}
