package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Members;
import dev.dedup.examples.testing.Postgres;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.ShareMember;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.Stack;
import dev.dedup.examples.testing.Traffic;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library's {@link dev.dedup.kafka.DedupingShareConsumer} in a share group of 3 members on one topic (Kafka 4.2,
 * KIP-932), against a real broker with share groups on, the agent jar (one node, embedded store) and PostgreSQL,
 * under faults. Each
 * test ends with the sink against the ground truth: 0 lost, 0 counted twice, and the records processed twice
 * (delivered again after their output was written) counted and explained.
 */
class ShareGroupPipelineIT {

    private static final int UNIQUE = 1_500;
    private static final int PARTITIONS = 3;
    private static final int MEMBERS = 3;

    @TempDir
    static Path dir;

    static KafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.start(dir.resolve("kafka"));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    /** Processing fails on a record's first delivery: the claims are released, the records RELEASEd, and counted. */
    @Test
    void processingFailureReleasesClaimsBeforeTheRecords() throws Exception {
        try (Run run = new Run("failures")) {
            for (int i = 0; i < MEMBERS; i++) {
                run.start(i, "fail=50");
            }
            Outcome o = run.finish();
            assertTrue(o.counts.released() > 0, "claims released: " + o.counts);
            assertEquals(0, o.reprocessed, "nothing whose output was written is delivered again");
        }
    }

    /**
     * A member killed ({@code kill -9}) after writing a batch's output and before acknowledging it: the records'
     * locks run out, they go to the other members, which claim the same owners and get retry: processed again,
     * absorbed by the sink's owner key. Exactly that batch is processed twice.
     */
    @Test
    void memberKilledMidBatch() throws Exception {
        try (Run run = new Run("kill9")) {
            ChildJvm victim = run.start(0, "pauseBeforeAck=3");
            for (int i = 1; i < MEMBERS; i++) {
                run.start(i);
            }
            victim.awaitLine(l -> l.startsWith("PAUSED"), Duration.ofSeconds(60));
            int batch = lastProcessed(victim);
            victim.kill9();
            Outcome o = run.finish();
            assertEquals(batch, o.reprocessed, "the killed member's unacknowledged batch, processed again");
            assertTrue(o.counts.retried() >= batch, "delivered again as retry: " + o.counts);
        }
    }

    /**
     * A member stalls past {@code share.record.lock.duration.ms} (4 s) while processing a batch (12 s): its records
     * go to the others (retry: processed), then the stalled member writes its output too and its acknowledgements
     * are refused. The contract allows this: retry means "process again", and the sink's owner key absorbs it.
     */
    @Test
    void memberStalledPastTheLockIsProcessedTwice() throws Exception {
        stalled(false);
    }

    /** The same stall, renewing the locks every second ({@code AcknowledgeType.RENEW}, KIP-1222): none go elsewhere. */
    @Test
    void memberStalledButRenewingItsLocksIsProcessedOnce() throws Exception {
        stalled(true);
    }

    private void stalled(boolean renew) throws Exception {
        try (Run run = new Run(renew ? "stall-renew" : "stall")) {
            long stallMs = KafkaBroker.RECORD_LOCK.toMillis() * 3;
            List<String> faults = new ArrayList<>(List.of("stallAt=2", "stallMs=" + stallMs));
            if (renew) {
                faults.add("renew");
            }
            ChildJvm slow = run.start(0, faults.toArray(String[]::new));
            for (int i = 1; i < MEMBERS; i++) {
                run.start(i);
            }
            String line = slow.awaitLine(l -> l.startsWith("STALLING"), Duration.ofSeconds(60));
            int stalledRecords = Integer.parseInt(line.split(" ")[1]);
            slow.awaitLine(l -> l.startsWith("STALLED done"), Duration.ofSeconds(60));
            Outcome o = run.finish();
            Report.line(String.format(
                    "share    %-24s the stalled batch held %d records; processed twice: %d",
                    run.name, stalledRecords, o.reprocessed));
            if (renew) {
                assertEquals(0, o.reprocessed, "renewed locks: nothing delivered elsewhere");
            } else {
                assertEquals(stalledRecords, o.reprocessed, "the stalled batch, delivered elsewhere and processed");
            }
        }
    }

    private static final Pattern PROCESSED = Pattern.compile("PROCESSED (\\d+)");

    private static int lastProcessed(ChildJvm member) {
        int last = -1;
        for (String line : member.output().split("\n")) {
            Matcher m = PROCESSED.matcher(line);
            if (m.find()) {
                last = Integer.parseInt(m.group(1));
            }
        }
        return last;
    }

    record Outcome(Sink.Check check, Members.Counts counts, long reprocessed) {}

    /** One test's share group: a topic, a database, one agent, the members; all stopped at the end. */
    private static final class Run implements AutoCloseable {
        final String name;
        final Stack stack;
        final Traffic traffic;
        final String topic;
        final String group;
        final Postgres db;
        final List<ChildJvm> members = new ArrayList<>();
        final CompletableFuture<Integer> producing;
        final long started = System.nanoTime();

        Run(String name) throws Exception {
            this.name = name + "/embedded";
            this.stack = Stack.start(Stack.Store.EMBEDDED, dir.resolve(name));
            this.traffic = Traffic.generate(UNIQUE, PARTITIONS, name.hashCode());
            this.topic = "share-" + name;
            this.group = "share-group-" + name;
            broker.createTopic(topic, PARTITIONS);
            broker.configureGroup(group, Map.of("share.auto.offset.reset", "earliest"));
            this.db = Postgres.createDatabase("pipeline");
            new AggregateSink(db.url(), AggregateSink.Audit.NONE).createTables();
            Sink.createAuditTable(db);
            this.producing = CompletableFuture.supplyAsync(
                    () -> traffic.produce(broker.bootstrap(), topic, Duration.ofSeconds(6)));
        }

        ChildJvm start(int member, String... faults) throws Exception {
            List<String> args = new ArrayList<>(List.of(broker.bootstrap(), topic, group, db.url(), "orders"));
            args.addAll(List.of(faults));
            ChildJvm m = ChildJvm.start(
                    "share-member-" + member,
                    dir.resolve(name.replace('/', '-')).resolve("member-" + member + ".log"),
                    List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                    ShareMember.class.getName(),
                    args,
                    Map.of("DEDUP_URL", stack.agentFor(member).uri().toString()));
            members.add(m);
            return m;
        }

        /** Until every record of the topic is acknowledged in the group (each partition's start offset at its end). */
        void awaitAcknowledged() throws Exception {
            producing.get();
            Map<TopicPartition, Long> end = broker.endOffsets(topic, PARTITIONS);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            Map<TopicPartition, SharePartitionOffsetInfo> offsets = Map.of();
            while (System.nanoTime() < deadline) {
                try {
                    offsets = broker.admin()
                            .listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                            .partitionsToOffsetInfo(group)
                            .get(10, TimeUnit.SECONDS);
                } catch (Exception notYet) {
                    offsets = Map.of();
                }
                Map<TopicPartition, SharePartitionOffsetInfo> now = offsets;
                // lag: records not yet delivery-complete (acknowledged, or archived after too many deliveries)
                boolean done = end.entrySet().stream()
                        .allMatch(e -> now.get(e.getKey()) != null
                                && (now.get(e.getKey()).startOffset() >= e.getValue()
                                        || now.get(e.getKey()).lag().orElse(-1L) == 0));
                if (done) {
                    return;
                }
                Thread.sleep(200);
            }
            StringBuilder logs = new StringBuilder();
            members.forEach(m -> logs.append(m.tail()));
            throw new AssertionError(name + ": group at " + offsets + ", topic ends at " + end + "\n" + logs);
        }

        Outcome finish() throws Exception {
            awaitAcknowledged();
            for (ChildJvm m : members) {
                m.terminate(Duration.ofSeconds(15));
            }
            Sink.Check check = Sink.check(db, traffic);
            Members.Counts counts = Members.counts(members);
            long reprocessed = Sink.reprocessedOwners(db);
            long refused = members.stream()
                    .flatMap(m -> m.output().lines())
                    .filter(l -> l.startsWith("REFUSED"))
                    .count();
            Report.line(String.format(
                    "share    %-24s records %d (unique %d): %s; verdicts: %s; processed twice %d; refused acks %d;"
                            + " %.1f s",
                    name,
                    traffic.copies().size(),
                    traffic.messages().size(),
                    check,
                    counts,
                    reprocessed,
                    refused,
                    (System.nanoTime() - started) / 1e9));
            assertEquals(0, check.lost(), name + ": " + check);
            assertEquals(0, check.countedTwice(), name + ": " + check);
            assertTrue(check.exact(), name + ": " + check);
            return new Outcome(check, counts, reprocessed);
        }

        @Override
        public void close() throws Exception {
            producing.cancel(true);
            for (ChildJvm m : members) {
                m.close();
            }
            stack.close();
            db.close();
        }
    }
}
