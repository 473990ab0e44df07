package dev.dedup.examples.engines;

import dev.dedup.examples.bench.Proc;
import dev.dedup.examples.flink.FlinkMember;
import dev.dedup.examples.sink.Event;
import dev.dedup.examples.testing.Agent;
import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Traffic;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One side of an engine benchmark run: its input and output topics, its agent (ours) and its job; the stream written
 * at the run's rate; every second the job's and the agent's CPU and RSS, Flink's checkpoint files and the group's
 * committed lag sampled; then, once the group has committed the input's end, the state's size, the job stopped, and
 * the output read with {@code read_committed} and checked against the ledger.
 */
final class EngineRun implements AutoCloseable {

    private static final Duration START = Duration.ofMinutes(3);
    private static final Pattern CHECKPOINT = Pattern.compile("^CHECKPOINT id=(\\d+)", Pattern.MULTILINE);

    private final EngineOptions options;
    private final EngineSide side;
    private final KafkaBroker broker;
    private final Path brokerData;
    private final Path dir;
    /** The input topic, Flink's group and transactional prefix, Kafka Streams' application id. */
    private final String topic;

    private final String output;
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    private final AtomicReference<ChildJvm> job = new AtomicReference<>();
    private final List<ChildJvm> jobs = new CopyOnWriteArrayList<>();
    private final Map<Long, Long> jobCpu = new ConcurrentHashMap<>();
    private final Map<Path, Long> checkpointFiles = new ConcurrentHashMap<>();
    private final AtomicLong jobRss = new AtomicLong();
    private final AtomicLong agentRss = new AtomicLong();
    /** Each second once the stream starts: when, the group's committed lag on the input, its committed offsets. */
    private final List<long[]> lags = new CopyOnWriteArrayList<>();

    private Agent agent;

    EngineRun(EngineOptions options, EngineSide side, KafkaBroker broker, Path brokerData) {
        this.options = options;
        this.side = side;
        this.broker = broker;
        this.brokerData = brokerData;
        this.dir = options.work().resolve(side.label);
        this.topic = "bench-" + side.label;
        this.output = topic + "-out";
    }

    EngineResult run() throws Exception {
        broker.createTopic(topic, options.partitions());
        broker.createTopic(output, 1);
        long window = options.window().toMillis();
        if (side.ours) {
            agent = Agent.embedded(
                    "agent-" + side.label,
                    dir.resolve("agent"),
                    List.of(
                            "--window",
                            options.window().toSeconds() + "s",
                            "--embedded-slots",
                            String.valueOf(slots(options.rate(), options.window()))));
        }
        startJob();
        if (job.get()
                .awaitLineOrExit(l -> l.startsWith(side.flink ? "CHECKPOINT" : "RUNNING"), START)
                .isEmpty()) {
            throw new IllegalStateException(
                    side.label + ": the job did not start:\n" + job.get().tail());
        }
        long start = System.currentTimeMillis() + 1_000;
        Traffic traffic = Traffic.generate(
                options.unique(),
                options.partitions(),
                options.seed(),
                start,
                options.duration().toMillis(),
                window * 3 / 10,
                window * 6 / 10);
        sampler.scheduleAtFixedRate(() -> sample(start), 0, 1, TimeUnit.SECONDS);
        long jobCpuStart = jobCpuMillis();
        long agentCpuStart = agent == null ? 0 : Proc.cpuMillis(agent.pid());
        AtomicLong killedAt = new AtomicLong(-1);
        AtomicLong committedAtKill = new AtomicLong();
        if (!options.killAt().isZero()) {
            sampler.schedule(
                    () -> killAndRestart(killedAt, committedAtKill),
                    start + options.killAt().toMillis() - System.currentTimeMillis(),
                    TimeUnit.MILLISECONDS);
        }
        // the state when the last original is written: it then holds a full window of ids
        AtomicLong stateAtLast = new AtomicLong(-1);
        sampler.schedule(
                () -> {
                    try {
                        stateAtLast.set(stateBytes());
                    } catch (IOException | java.io.UncheckedIOException changedMeanwhile) {
                        stateAtLast.set(-1);
                    }
                },
                start + options.duration().toMillis() - System.currentTimeMillis(),
                TimeUnit.MILLISECONDS);
        traffic.produceAtWriteTimes(broker.bootstrap(), topic);
        long producedAt = System.currentTimeMillis();
        Map<TopicPartition, Long> end = broker.endOffsets(topic, options.partitions());
        long deadline =
                System.nanoTime() + Math.max(START.toNanos(), options.duration().toNanos());
        boolean caughtUp = false;
        while (System.nanoTime() < deadline) {
            if (KafkaBroker.caughtUp(broker.committed(topic), end)
                    && (side.flink || broker.behind(topic).isEmpty())) {
                caughtUp = true;
                break;
            }
            Thread.sleep(250);
        }
        long caughtUpAt = System.currentTimeMillis();
        if (caughtUp && side.flink) {
            // the sink commits a checkpoint's output when the checkpoint completes, the offsets with it: one more
            long last = lastCheckpoint();
            job.get().awaitLineOrExit(l -> l.startsWith("CHECKPOINT") && id(l) > last, START);
        } else {
            Thread.sleep(2_000);
        }
        sample(start);
        long jobCpuEnd = jobCpuMillis();
        long agentCpuEnd = agent == null ? 0 : Proc.cpuMillis(agent.pid());
        sampler.shutdownNow();
        long changelog = topicBytes("-changelog-");
        long repartition = topicBytes("-repartition-");
        job.get().terminate(Duration.ofSeconds(30));

        Map<String, Integer> wrongKinds = new java.util.TreeMap<>();
        long[] check = check(traffic, wrongKinds);
        long held = heldIds(
                traffic,
                start + options.duration().toMillis() - window,
                start + options.duration().toMillis());
        // every subtask prints a completed checkpoint; a restored job goes on with the ids after its checkpoint's
        long checkpoints = jobs.stream()
                .flatMap(j -> CHECKPOINT.matcher(j.output()).results())
                .map(m -> m.group(1))
                .distinct()
                .count();
        long lagBeforeKill = lags.stream()
                .filter(l -> killedAt.get() < 0 || l[0] < killedAt.get())
                .filter(l -> l[0]
                        >= start + Math.min(20_000, Math.max(1, options.killAt().toMillis() / 2)))
                .mapToLong(l -> l[1])
                .max()
                .orElse(0);
        return new EngineResult(
                side.label,
                traffic.copies().size(),
                traffic.messages().size(),
                (int) check[0],
                (int) check[1],
                (int) check[2],
                wrongKinds.toString(),
                caughtUp,
                caughtUp ? caughtUpAt - producedAt : -1,
                caughtUp ? traffic.messages().size() * 1000.0 / (caughtUpAt - start) : 0,
                jobCpuEnd - jobCpuStart,
                agent == null ? -1 : agentCpuEnd - agentCpuStart,
                jobRss.get(),
                agentRss.get(),
                held,
                stateAtLast.get(),
                side.flink ? checkpoints : 0,
                checkpointFiles.values().stream().mapToLong(Long::longValue).sum(),
                changelog,
                repartition,
                recovery(killedAt.get(), committedAtKill.get(), lagBeforeKill),
                lagBeforeKill);
    }

    /**
     * Slots for 6 times the ids of a window: the embedded store remembers 99.99 % of them (embedded-store.md), so its
     * file, 16 bytes a slot, is about 96 bytes an id of the window.
     */
    static long slots(int rate, Duration window) {
        return Math.max(1024, 6L * rate * window.toSeconds());
    }

    private void startJob() throws IOException {
        Path log = dir.resolve("job-" + (jobs.size() + 1) + ".log");
        Map<String, String> env =
                agent == null ? Map.of() : Map.of("DEDUP_URL", agent.uri().toString());
        ChildJvm started;
        if (side.flink) {
            Path file = Path.of(System.getProperty("pipeline.flink.classpath.file", "target/test-classpath.txt"))
                    .toAbsolutePath();
            String classpath = file.resolveSibling("test-classes")
                    + File.pathSeparator
                    + Files.readString(file).trim();
            started = ChildJvm.exec(
                    side.label,
                    log,
                    List.of(
                            ChildJvm.javaBin(),
                            "-Xmx1g",
                            "-cp",
                            classpath,
                            FlinkBenchJob.class.getName(),
                            broker.bootstrap(),
                            topic,
                            output,
                            dir.resolve("checkpoints").toString(),
                            side.mode(),
                            String.valueOf(options.window().toSeconds()),
                            String.valueOf(options.checkpoint().toMillis()),
                            String.valueOf(options.parallelism())),
                    env);
        } else {
            started = ChildJvm.start(
                    side.label,
                    log,
                    List.of("-Xmx1g"),
                    "dev.dedup.examples.bench.StreamsBenchApp",
                    List.of(
                            broker.bootstrap(),
                            topic,
                            output,
                            topic,
                            dir.resolve("state").toString(),
                            side.mode(),
                            String.valueOf(options.window().toSeconds())),
                    env);
        }
        jobs.add(started);
        job.set(started);
    }

    /**
     * {@code kill -9} of the job mid-stream, then the same job again at once: Flink from its newest checkpoint (on
     * RocksDB with an empty local directory, as a new task manager has), Kafka Streams on the same state directory.
     */
    private void killAndRestart(AtomicLong killedAt, AtomicLong committedAtKill) {
        try {
            committedAtKill.set(committedSum());
            job.get().kill9();
            killedAt.set(System.currentTimeMillis());
            if (side == EngineSide.FLINK_OWN_ROCKSDB) {
                delete(dir.resolve("rocksdb"));
            }
            startJob();
        } catch (Exception e) {
            throw new IllegalStateException(side.label + ": restart after kill -9 failed", e);
        }
    }

    /**
     * From the kill until the restarted job had committed past where the killed one had and its committed lag was no
     * more than the largest before the kill.
     */
    private long recovery(long killedAt, long committedAtKill, long lagBeforeKill) {
        if (killedAt < 0) {
            return -1;
        }
        for (long[] l : lags) {
            if (l[0] > killedAt && l[2] > committedAtKill && l[1] <= lagBeforeKill) {
                return l[0] - killedAt;
            }
        }
        return -1;
    }

    private void sample(long start) {
        ChildJvm j = job.get();
        if (j != null && j.isAlive()) {
            jobRss.accumulateAndGet(Proc.rssBytes(j.pid()), Math::max);
            long cpu = Proc.cpuMillis(j.pid());
            if (cpu > 0) {
                jobCpu.put(j.pid(), cpu);
            }
        }
        if (agent != null) {
            agentRss.accumulateAndGet(Proc.rssBytes(agent.pid()), Math::max);
        }
        Path checkpoints = dir.resolve("checkpoints");
        if (Files.isDirectory(checkpoints)) {
            try (Stream<Path> files = Files.walk(checkpoints)) {
                files.filter(Files::isRegularFile).forEach(p -> {
                    try {
                        checkpointFiles.merge(p, Files.size(p), Math::max);
                    } catch (IOException deletedMeanwhile) {
                        // a checkpoint Flink no longer retains: counted when it was seen
                    }
                });
            } catch (IOException | java.io.UncheckedIOException changedMeanwhile) {
                // the next sample sees the rest
            }
        }
        long now = System.currentTimeMillis();
        if (now >= start) {
            try {
                long end = broker.endOffsets(topic, options.partitions()).values().stream()
                        .mapToLong(Long::longValue)
                        .sum();
                long committed = committedSum();
                lags.add(new long[] {now, end - committed, committed});
            } catch (Exception brokerBusy) {
                // a missed second
            }
        }
    }

    /** The group's committed offsets on the input, summed over its partitions. */
    private long committedSum() throws Exception {
        long sum = 0;
        for (Map.Entry<TopicPartition, OffsetAndMetadata> e :
                broker.committed(topic).entrySet()) {
            if (e.getKey().topic().equals(topic) && e.getValue() != null) {
                sum += e.getValue().offset();
            }
        }
        return sum;
    }

    private long jobCpuMillis() {
        ChildJvm j = job.get();
        if (j.isAlive()) {
            jobCpu.put(j.pid(), Proc.cpuMillis(j.pid()));
        }
        return jobCpu.values().stream().mapToLong(Long::longValue).sum();
    }

    private long lastCheckpoint() {
        Matcher m = CHECKPOINT.matcher(job.get().output());
        long last = 0;
        while (m.find()) {
            last = Math.max(last, Long.parseLong(m.group(1)));
        }
        return last;
    }

    private static long id(String line) {
        Matcher m = CHECKPOINT.matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private long stateBytes() throws IOException {
        return switch (side) {
            case FLINK_OWN_HEAP -> {
                var newest = FlinkMember.newestCheckpoint(dir.resolve("checkpoints"));
                yield newest.isPresent() ? size(newest.get()) : 0;
            }
            case FLINK_OWN_ROCKSDB -> size(dir.resolve("rocksdb"));
            case STREAMS_OWN -> size(dir.resolve("state"));
            case FLINK_OURS, STREAMS_OURS ->
                size(dir.resolve("agent").resolve("data").resolve("claims.slots"));
        };
    }

    /**
     * The broker's log segments ({@code .log} files: the records as written, without the indexes the broker
     * preallocates) of this application's internal topics whose names hold {@code kind}.
     */
    private long topicBytes(String kind) throws IOException {
        if (side.flink || !Files.isDirectory(brokerData)) {
            return 0;
        }
        long sum = 0;
        try (Stream<Path> dirs = Files.list(brokerData)) {
            for (Path d : dirs.toList()) {
                String name = d.getFileName().toString();
                if (name.startsWith(topic + "-") && name.contains(kind)) {
                    try (Stream<Path> files = Files.list(d)) {
                        sum += files.filter(f -> f.getFileName().toString().endsWith(".log"))
                                .mapToLong(f -> f.toFile().length())
                                .sum();
                    }
                }
            }
        }
        return sum;
    }

    /**
     * Lost, counted twice, ambiguous: each value of the output against the messages that have it (Flink's output
     * holds values alone; Kafka Streams' the id header too, read as the value's owner all the same).
     */
    private long[] check(Traffic traffic, Map<String, Integer> wrongKinds) {
        Map<String, Integer> expected = new HashMap<>();
        for (Traffic.Message m : traffic.messages()) {
            expected.merge(Event.value(m.app(), m.eventMillis(), m.amount()), 1, Integer::sum);
        }
        // what kind of copies each value's message came with: the kind of the last copy not an original
        Map<String, String> kind = new HashMap<>();
        for (Traffic.Copy c : traffic.copies()) {
            String v = Event.value(
                    c.message().app(), c.message().eventMillis(), c.message().amount());
            if (c.kind() != Traffic.Kind.ORIGINAL || !kind.containsKey(v)) {
                kind.put(v, c.kind().name());
            }
        }
        Function<ConsumerRecord<String, byte[]>, String> value = r -> new String(r.value(), StandardCharsets.UTF_8);
        Map<String, Integer> seen = broker.committedCounts(output, value);
        long lost = 0;
        long twice = 0;
        long ambiguous = 0;
        for (Map.Entry<String, Integer> e : expected.entrySet()) {
            int s = seen.getOrDefault(e.getKey(), 0);
            lost += Math.max(0, e.getValue() - s);
            twice += Math.max(0, s - e.getValue());
            if (s != e.getValue()) {
                wrongKinds.merge((s < e.getValue() ? "lost " : "twice ") + kind.get(e.getKey()), 1, Integer::sum);
            }
            ambiguous += e.getValue() > 1 ? e.getValue() : 0;
        }
        for (Map.Entry<String, Integer> e : seen.entrySet()) {
            if (!expected.containsKey(e.getKey())) {
                twice += e.getValue(); // a value no message has: counted as wrong
            }
        }
        return new long[] {lost, twice, ambiguous};
    }

    /** Messages whose first copy was written from {@code from} to {@code to}. */
    private static long heldIds(Traffic traffic, long from, long to) {
        Map<String, Long> first = new HashMap<>();
        for (Traffic.Copy c : traffic.copies()) {
            first.merge(c.message().id(), c.writeMillis(), Math::min);
        }
        return first.values().stream().filter(t -> t >= from && t < to).count();
    }

    private static long size(Path root) throws IOException {
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    private static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    @Override
    public void close() throws Exception {
        sampler.shutdownNow();
        for (ChildJvm j : jobs) {
            j.close();
        }
        if (agent != null) {
            agent.close();
        }
    }
}
