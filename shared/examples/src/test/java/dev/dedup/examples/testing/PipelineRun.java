package dev.dedup.examples.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One pipeline test's world, the base of every pipeline test's run: the agents ({@link Stack}), a topic the
 * {@link Traffic} is written to (at once, or spread over a while so that faults hit a stream still flowing), a
 * PostgreSQL database with the sink's tables if the run writes there, and the members the test starts in JVMs of
 * their own; all stopped by {@link #close()}, which a failure in the constructor also does.
 */
public class PipelineRun implements AutoCloseable {

    /** Small JVMs: several members and the agents share a two-core machine. */
    private static final List<String> MEMBER_JVM = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /** What a test does to a run's processes while it goes on: kill one, restart one. */
    public interface Fault {
        void inject() throws Exception;
    }

    /** A check a run waits for. */
    public interface Condition {
        boolean met() throws Exception;
    }

    public final KafkaBroker broker;
    /** The run's folder: its processes' state, logs, checkpoints. */
    public final Path dir;

    public final String name;
    public final Traffic traffic;
    public final String topic;
    public final Stack stack;
    /** The sink's database; null if the run has none. */
    public final Postgres db;
    /** Every member started, those killed included. */
    public final List<ChildJvm> members = new ArrayList<>();

    private final CompletableFuture<Integer> producing;
    private final long started = System.nanoTime();

    /**
     * Starts the agents of {@code store} in {@code dir} (the run's folder, for its processes' state and logs),
     * creates the topic with the traffic's partitions and, if {@code postgres}, a database with the sink's tables,
     * then writes the traffic: at once if {@code writing} is zero, else spread over {@code writing} while the test
     * goes on ({@link #records()} waits for the end).
     */
    public PipelineRun(
            KafkaBroker broker,
            Path dir,
            String name,
            Stack.Store store,
            Traffic traffic,
            String topic,
            boolean postgres,
            Duration writing)
            throws Exception {
        this.broker = broker;
        this.dir = dir;
        this.name = name;
        this.traffic = traffic;
        this.topic = topic;
        this.stack = Stack.start(store, dir);
        Postgres database = null;
        try { // a failure here (a record the broker did not take) must not leave the agents running
            broker.createTopic(topic, traffic.partitions());
            database = postgres ? Sink.createDatabase() : null;
            if (writing.isZero()) {
                producing = CompletableFuture.completedFuture(traffic.produce(broker.bootstrap(), topic));
            } else {
                producing = CompletableFuture.supplyAsync(() -> traffic.produce(broker.bootstrap(), topic, writing));
            }
        } catch (Exception | Error e) {
            stack.close();
            if (database != null) {
                database.close();
            }
            throw e;
        }
        this.db = database;
    }

    /** Waits until the traffic is written; the number of records. */
    public int records() throws Exception {
        return producing.get();
    }

    /**
     * Starts {@code mainClass} as member {@code member} in a small JVM of its own, talking to {@code agent} as a pod
     * does ({@code DEDUP_URL}), its output in the run's folder.
     */
    public ChildJvm startMember(String member, String mainClass, List<String> args, Agent agent) throws Exception {
        return addMember(ChildJvm.start(
                member,
                dir.resolve(member + "-" + members.size() + ".log"),
                MEMBER_JVM,
                mainClass,
                args,
                Map.of("DEDUP_URL", agent.uri().toString())));
    }

    /** Adds a member started otherwise, to be counted and stopped with the others. */
    public ChildJvm addMember(ChildJvm member) {
        members.add(member);
        return member;
    }

    /** Waits up to {@code within} for {@code member} to print {@code PAUSED}, then kills it ({@code kill -9}). */
    public static void killWhenPaused(ChildJvm member, Duration within) throws InterruptedException {
        member.awaitLine(l -> l.startsWith("PAUSED"), within);
        member.kill9();
    }

    /** The verdicts and releases every member printed, those killed included. */
    public Members.Counts counts() {
        return Members.counts(members);
    }

    /** The end of every member's log, to explain a failure. */
    public String logs() {
        StringBuilder logs = new StringBuilder();
        members.forEach(m -> logs.append(m.tail()));
        return logs.toString();
    }

    /** Whether {@code done} is met within {@code timeout}, checked every {@code every}. */
    public static boolean await(Duration timeout, Duration every, Condition done) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (done.met()) {
                return true;
            }
            Thread.sleep(every.toMillis());
        }
        return false;
    }

    /** What the topic holds, for a report: {@code records N (unique N, retry copies N, late copies N)}. */
    public String written() throws Exception {
        return String.format(
                "records %d (unique %d, retry copies %d, late copies %d)",
                records(),
                traffic.messages().size(),
                traffic.count(Traffic.Kind.RETRY_COPY),
                traffic.count(Traffic.Kind.LATE_COPY));
    }

    /** What the traffic holds, for a report: {@code records N (unique N)}. */
    public String copies() {
        return String.format(
                "records %d (unique %d)",
                traffic.copies().size(), traffic.messages().size());
    }

    /** Reports that the run failed ({@code reported}) and fails the test with {@code explained}. */
    public AssertionError failed(String reported, String explained) {
        Report.line(name + " FAILED: " + reported);
        return new AssertionError(name + ": " + explained);
    }

    /** Seconds since the run started. */
    public double seconds() {
        return (System.nanoTime() - started) / 1e9;
    }

    /** The sink against the ground truth: 0 lost, 0 counted twice, exact aggregates. */
    public void assertExact(Sink.Check check) {
        assertEquals(0, check.lost(), name + ": " + check);
        assertEquals(0, check.countedTwice(), name + ": " + check);
        assertTrue(check.exact(), name + ": " + check);
    }

    @Override
    public void close() throws Exception {
        producing.cancel(true);
        for (ChildJvm m : members) {
            m.close();
        }
        stack.close();
        if (db != null) {
            db.close();
        }
    }
}
