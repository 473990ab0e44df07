package dev.dedup.examples.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.sink.AggregateSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * One share-group test's world: a topic written by {@link Traffic}, a database with the {@link AggregateSink}'s
 * tables and the audit, one agent (embedded store), and the {@link ShareMember}s the test starts; all stopped by
 * {@link #close()}. {@link #finish()} waits until the group has acknowledged every record, then checks the sink
 * against the ground truth.
 */
public final class ShareGroupRun implements AutoCloseable {

    /** What a run ended with: the sink's check, the members' verdicts, records processed again after their output. */
    public record Outcome(Sink.Check check, Members.Counts counts, long reprocessed) {}

    private final KafkaBroker broker;
    private final Path dir;
    private final String name;
    private final Stack stack;
    private final Traffic traffic;
    private final String topic;
    private final String group;
    private final Postgres db;
    private final List<ChildJvm> members = new ArrayList<>();
    private final CompletableFuture<Integer> producing;
    private final long started = System.nanoTime();

    /**
     * Starts the agent, creates the topic ({@code partitions}) and the group (reading from the earliest offset), and
     * writes {@code unique} messages and their copies over 6 seconds.
     */
    public ShareGroupRun(KafkaBroker broker, Path dir, String name, int unique, int partitions) throws Exception {
        this(broker, dir, name, unique, partitions, Duration.ofSeconds(6));
    }

    /** The same, the records written over {@code writing}. */
    public ShareGroupRun(KafkaBroker broker, Path dir, String name, int unique, int partitions, Duration writing)
            throws Exception {
        this.broker = broker;
        this.dir = dir;
        this.name = name + "/embedded";
        this.stack = Stack.start(Stack.Store.EMBEDDED, dir.resolve(name));
        this.traffic = Traffic.generate(unique, partitions, name.hashCode());
        this.topic = "share-" + name;
        this.group = "share-group-" + name;
        broker.createTopic(topic, partitions);
        broker.configureGroup(group, Map.of("share.auto.offset.reset", "earliest"));
        this.db = Postgres.createDatabase("pipeline");
        new AggregateSink(db.url(), AggregateSink.Audit.NONE).createTables();
        Sink.createAuditTable(db);
        this.producing = CompletableFuture.supplyAsync(() -> traffic.produce(broker.bootstrap(), topic, writing));
    }

    public String name() {
        return name;
    }

    /** Starts member number {@code member} on the agent it is given, with the {@link ShareMember} options. */
    public ChildJvm start(int member, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of(broker.bootstrap(), topic, group, db.url(), "orders"));
        args.addAll(List.of(options));
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

    /**
     * Until every record of the topic is delivery-complete in the group: acknowledged, or archived after too many
     * deliveries (each partition's start offset at its end, or no lag).
     */
    private void awaitDeliveryComplete() throws Exception {
        producing.get();
        int partitions = traffic.partitions();
        Map<TopicPartition, Long> end = broker.endOffsets(topic, partitions);
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

    /**
     * Waits for the group to finish the topic, stops the members, reports the counts and asserts 0 lost, 0 counted
     * twice and exact aggregates.
     */
    public Outcome finish() throws Exception {
        awaitDeliveryComplete();
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
