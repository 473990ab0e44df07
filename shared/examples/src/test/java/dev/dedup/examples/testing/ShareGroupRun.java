package dev.dedup.examples.testing;

import dev.dedup.examples.sink.AggregateSink;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * One share-group test's world: a topic written by {@link Traffic}, a database with the {@link AggregateSink}'s
 * tables and the audit, one agent (embedded store), and the {@link ShareMember}s the test starts; all stopped by
 * {@link #close()}. {@link #finish()} waits until the group has acknowledged every record, then checks the sink
 * against the ground truth.
 */
public final class ShareGroupRun extends PipelineRun {

    /** What a run ended with: the sink's check, the members' verdicts, records processed again after their output. */
    public record Outcome(Sink.Check check, Members.Counts counts, long reprocessed) {}

    private final String group;

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
        super(
                broker,
                dir.resolve(name),
                name + "/embedded",
                Stack.Store.EMBEDDED,
                Traffic.generate(unique, partitions, name.hashCode()),
                "share-" + name,
                true,
                writing);
        this.group = "share-group-" + name;
        try {
            broker.configureGroup(group, Map.of("share.auto.offset.reset", "earliest"));
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** Starts member number {@code member} on the agent it is given, with the {@link ShareMember} options. */
    public ChildJvm start(int member, String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of(broker.bootstrap(), topic, group, db.url(), "orders"));
        args.addAll(List.of(options));
        return startMember("share-member-" + member, ShareMember.class.getName(), args, stack.agentFor(member));
    }

    /**
     * Until every record of the topic is delivery-complete in the group: acknowledged, or archived after too many
     * deliveries (each partition's start offset at its end, or no lag).
     */
    private void awaitDeliveryComplete() throws Exception {
        records();
        Map<TopicPartition, Long> end = broker.endOffsets(topic, traffic.partitions());
        AtomicReference<Map<TopicPartition, SharePartitionOffsetInfo>> offsets = new AtomicReference<>(Map.of());
        boolean complete = await(Duration.ofSeconds(120), Duration.ofMillis(200), () -> {
            Map<TopicPartition, SharePartitionOffsetInfo> now;
            try {
                now = broker.admin()
                        .listShareGroupOffsets(Map.of(group, new ListShareGroupOffsetsSpec()))
                        .partitionsToOffsetInfo(group)
                        .get(10, TimeUnit.SECONDS);
            } catch (Exception notYet) {
                now = Map.of();
            }
            offsets.set(now);
            return end.entrySet().stream()
                    .allMatch(e -> offsets.get().get(e.getKey()) != null
                            && (offsets.get().get(e.getKey()).startOffset() >= e.getValue()
                                    || offsets.get().get(e.getKey()).lag().orElse(-1L) == 0));
        });
        if (!complete) {
            throw new AssertionError(name + ": group at " + offsets.get() + ", topic ends at " + end + "\n" + logs());
        }
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
        Members.Counts counts = counts();
        long reprocessed = Sink.reprocessedOwners(db);
        long refused = members.stream()
                .flatMap(m -> m.output().lines())
                .filter(l -> l.startsWith("REFUSED"))
                .count();
        Report.line(String.format(
                "share    %-24s %s: %s; verdicts: %s; processed twice %d; refused acks %d; %.1f s",
                name, copies(), check, counts, reprocessed, refused, seconds()));
        assertExact(check);
        return new Outcome(check, counts, reprocessed);
    }
}
