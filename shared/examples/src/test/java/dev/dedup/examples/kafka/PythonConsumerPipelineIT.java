package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.Members;
import dev.dedup.examples.testing.PipelineRun;
import dev.dedup.examples.testing.PythonMember;
import dev.dedup.examples.testing.PythonSink;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.Stack.Store;
import dev.dedup.examples.testing.Traffic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Python client's consumer loop ({@code dedup_client.kafka.consume}) with kafka-python's real {@code
 * KafkaConsumer} (Debian's python3-kafka 2.0.2) and with confluent-kafka's real {@code Consumer} (Debian's
 * python3-confluent-kafka 1.7.0, librdkafka 2.0.2) against a real Kafka 4.2.2 KRaft broker and the agent jar
 * (embedded store), writing to a SQLite sink that keeps each partition's next offset in the transaction of its
 * output. Members run as {@code /usr/bin/python3} processes ({@link PythonMember}), so a test can {@code kill -9}
 * one. Each test ends with the sink compared to the ground truth: 0 lost, 0 counted twice, aggregates exact.
 */
class PythonConsumerPipelineIT {

    @RegisterExtension
    static final Services services = Services.kafka("python-pipeline");

    /**
     * {@code kill -9} between the sink's transaction and the offset commit, then a restart: the member reads the
     * uncommitted records again, their claims answer retry (same owners), and the sink leaves alone those below its
     * stored offset.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kafka-python", "confluent-kafka"})
    void consumerKilledBetweenProcessingAndOffsetCommitRestarts(String client) throws Exception {
        try (Run run = new Run("kill9", client)) {
            ChildJvm a = run.start("pauseBeforeCommit=3");
            a.awaitLine(l -> l.startsWith("PAUSED"), Duration.ofSeconds(90));
            run.kill9(a);
            run.start();
            run.awaitCommitted();
            Members.Counts counts = run.finish();
            assertTrue(counts.retried() > 0, "the re-read records answered retry: " + counts);
            assertTrue(run.lines("SKIPPED") > 0, "the sink had applied some of the re-read records already");
        }
    }

    /**
     * Two members; the sink fails once for every id whose CRC-32 is a multiple of 20, after the record's writes
     * (rolled back with the rest of the poll's): the loop releases the claims of the poll's kept records and reads
     * them again, and the redelivery of a failed record is claimed {@code new}.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"kafka-python", "confluent-kafka"})
    void processingFailureReleasesClaimsAndTheRedeliveryIsNew(String client) throws Exception {
        try (Run run = new Run("failures", client)) {
            run.start("fail=20");
            run.start("fail=20");
            run.awaitCommitted();
            Members.Counts counts = run.finish();
            long failed = run.lines("FAILED ");
            long redelivered = run.lines("REDELIVERED ");
            long redeliveredNew = run.lines(l -> l.startsWith("REDELIVERED ") && l.endsWith(" new"));
            assertTrue(failed > 0 && counts.released() > 0, "failures released claims: " + counts);
            assertTrue(redelivered > 0, "failed records were processed again");
            assertEquals(redelivered, redeliveredNew, "every redelivery processed after a failure was new");
        }
    }

    /**
     * One test's pipeline: a topic of 2,500 messages and their copies on 4 partitions, written over 8 s, a sink, an
     * agent, the members of one Kafka library; all stopped at the end.
     */
    private static final class Run extends PipelineRun {
        final String client;
        final String group;
        /** The members' SQLite sink. */
        final Path sinkFile;

        final List<ChildJvm> killed = new ArrayList<>();

        Run(String scenario, String client) throws Exception {
            super(
                    services.broker(),
                    services.dir().resolve(scenario + "-" + client),
                    scenario + "-" + client,
                    Store.EMBEDDED,
                    Traffic.generate(2_500, 4, (scenario + "-" + client).hashCode() * 31L + 7),
                    "python-" + scenario + "-" + client,
                    false,
                    Duration.ofSeconds(8));
            this.client = client;
            this.group = "group-" + topic;
            this.sinkFile = dir.resolve("sink.db");
        }

        ChildJvm start(String... faults) throws Exception {
            List<String> args = new ArrayList<>(List.of(
                    broker.bootstrap(),
                    topic,
                    group,
                    stack.agentFor(0).uri().toString(),
                    sinkFile.toString(),
                    "clicks"));
            args.add("client=" + client);
            args.addAll(List.of(faults));
            String member = "python-member-" + members.size();
            return addMember(PythonMember.start(member, dir.resolve(member + ".log"), args));
        }

        void kill9(ChildJvm member) throws InterruptedException {
            killed.add(member);
            member.kill9();
        }

        /** Until the group's committed offsets reach the end of every partition (the sink wrote before each commit). */
        void awaitCommitted() throws Exception {
            records();
            Map<TopicPartition, Long> end = broker.endOffsets(topic, traffic.partitions());
            AtomicReference<Map<TopicPartition, OffsetAndMetadata>> committed = new AtomicReference<>(Map.of());
            boolean caughtUp = await(Duration.ofSeconds(180), Duration.ofMillis(200), () -> {
                Map<TopicPartition, OffsetAndMetadata> seen = broker.admin()
                        .listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS);
                committed.set(seen);
                if (end.entrySet().stream()
                        .allMatch(e -> seen.get(e.getKey()) != null
                                && seen.get(e.getKey()).offset() >= e.getValue())) {
                    return true;
                }
                for (ChildJvm m : members) {
                    if (!m.isAlive() && !killed.contains(m)) {
                        throw new AssertionError(name + ": a member exited:\n" + m.tail());
                    }
                }
                return false;
            });
            if (!caughtUp) {
                throw new AssertionError(
                        name + ": committed " + committed.get() + ", topic ends at " + end + "\n" + logs());
            }
        }

        long lines(String prefix) {
            return PythonMember.lines(members, prefix);
        }

        long lines(Predicate<String> line) {
            return members.stream()
                    .flatMap(m -> m.output().lines())
                    .filter(line)
                    .count();
        }

        /** Stops the members (SIGTERM: they leave the group), compares the sink with the ground truth, reports. */
        Members.Counts finish() throws Exception {
            for (ChildJvm m : members) {
                if (m.isAlive()) {
                    assertEquals(0, m.terminate(Duration.ofSeconds(20)), name + ": member exit:\n" + m.tail());
                }
            }
            Sink.Check check = PythonSink.check(PythonMember.dump(sinkFile, dir.resolve("dump.txt")), traffic);
            Members.Counts counts = counts();
            Report.line(String.format(
                    "python consumer %-27s %s: %s; verdicts: %s;"
                            + " skipped by the sink %d, failed %d, processed again after a failure %d (new %d); %.1f s",
                    name,
                    written(),
                    check,
                    counts,
                    lines("SKIPPED "),
                    lines("FAILED "),
                    lines("REDELIVERED "),
                    lines(l -> l.startsWith("REDELIVERED ") && l.endsWith(" new")),
                    seconds()));
            assertExact(check);
            return counts;
        }
    }
}
