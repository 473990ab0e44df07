package dev.dedup.examples.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.testing.Agent;
import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Postgres;
import dev.dedup.examples.testing.Sink;
import dev.dedup.examples.testing.Traffic;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

/**
 * One side of a run: its topic, database, agent (ours) and Spark job; the stream written at its rate; every second
 * the job's and the agent's RSS and CPU and the checkpoint's files sampled; then, once a batch has read to the
 * topic's end, the store's state, the job stopped, and the sink checked against the ledger.
 */
final class SideRun implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final BenchOptions options;
    private final BenchOptions.Side side;
    private final KafkaBroker broker;
    private final Path dir;
    private final String topic;
    private final List<RedisServer> shards = new ArrayList<>();
    private ShardDelay shardDelay;
    private final AtomicReference<ChildJvm> job = new AtomicReference<>();
    private final ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
    private final Map<Path, Long> checkpointFiles = new ConcurrentHashMap<>();
    /** The last CPU time read of each job JVM (a restarted job is a second JVM). */
    private final Map<Long, Long> jobCpu = new ConcurrentHashMap<>();

    private final AtomicLong driverRss = new AtomicLong();
    private final AtomicLong agentRss = new AtomicLong();
    private Agent agent;
    private Postgres db;
    private int jobStarts;

    SideRun(BenchOptions options, BenchOptions.Side side, KafkaBroker broker) {
        this.options = options;
        this.side = side;
        this.broker = broker;
        this.dir = options.work().resolve(side.label);
        this.topic = "bench-" + side.label;
    }

    SideResult run() throws Exception {
        broker.createTopic(topic, options.partitions());
        db = Postgres.createDatabase("bench");
        new AggregateSink(db.url(), AggregateSink.Audit.NONE).createTables();
        Sink.createAuditTable(db);
        List<String> window = List.of("--window", options.window().toSeconds() + "s");
        if (side == BenchOptions.Side.OURS_EMBEDDED) {
            agent = Agent.embedded("agent", dir.resolve("agent"), window);
        } else if (side == BenchOptions.Side.OURS_REDIS) {
            for (int i = 0; i < 3; i++) {
                shards.add(RedisServer.start(dir.resolve("redis-" + i)));
            }
            List<String> uris = shards.stream().map(RedisServer::uri).toList();
            if (!options.shardRoundTrip().isZero()) {
                shardDelay = ShardDelay.start(
                        shards.stream().map(RedisServer::port).toList(),
                        options.shardRoundTrip(),
                        options.shardJitter(),
                        dir.resolve("delay-proxy.log"));
                uris = shardDelay.uris();
            }
            agent = Agent.redis("agent", dir.resolve("agent"), uris, window);
        }
        long redisBefore = usedMemory();
        Path progress = dir.resolve("progress.jsonl");
        startJob(progress);
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!ProgressLog.started(progress)) {
            if (System.nanoTime() > deadline || !job.get().isAlive()) {
                throw new IllegalStateException(side.label + ": the Spark job did not start:\n"
                        + job.get().tail());
            }
            Thread.sleep(200);
        }
        sampler.scheduleAtFixedRate(this::sample, 0, 1, TimeUnit.SECONDS);

        long w = options.window().toMillis();
        long start = System.currentTimeMillis() + 1_000;
        Traffic traffic = Traffic.generate(
                options.unique(),
                options.partitions(),
                options.seed(),
                start,
                options.duration().toMillis(),
                w * 3 / 10,
                w * 6 / 10);
        long jobCpuStart = jobCpuMillis();
        long agentCpuStart = agentCpuMillis();
        long proxyCpuStart = proxyCpuMillis();
        AtomicLong killedAt = new AtomicLong(-1);
        if (!options.killAt().isZero()) {
            sampler.schedule(
                    () -> killAndRestart(progress, killedAt),
                    start + options.killAt().toMillis() - System.currentTimeMillis(),
                    TimeUnit.MILLISECONDS);
        }
        traffic.produceAtWriteTimes(broker.bootstrap(), topic);
        long producedAt = System.currentTimeMillis();
        long end = broker.endOffsets(topic, options.partitions()).values().stream()
                .mapToLong(Long::longValue)
                .sum();
        List<ProgressLog.Batch> batches = ProgressLog.read(progress);
        long lagAtEnd = end
                - (batches.isEmpty()
                        ? 0
                        : Math.max(0, batches.get(batches.size() - 1).endOffsets()));
        long catchUpDeadline = System.nanoTime()
                + Math.max(Duration.ofMinutes(3).toNanos(), options.duration().toNanos());
        boolean caughtUp = false;
        while (System.nanoTime() < catchUpDeadline) {
            batches = ProgressLog.read(progress);
            if (!batches.isEmpty() && batches.get(batches.size() - 1).endOffsets() >= end) {
                caughtUp = true;
                break;
            }
            Thread.sleep(250);
        }
        long drain = caughtUp ? batches.get(batches.size() - 1).at() - producedAt : -1;
        sample();
        long jobCpuEnd = jobCpuMillis();
        long agentCpuEnd = agentCpuMillis();
        long proxyCpuEnd = proxyCpuMillis();
        JsonNode stats = agent == null ? null : stats();
        long redisAfter = usedMemory();
        job.get().terminate(Duration.ofSeconds(30));
        sampler.shutdownNow();

        Set<String> lost = new HashSet<>();
        Sink.Check check = Sink.check(db, traffic, lost::addAll);
        Set<String> twice = Sink.countedTwice(db);
        // The first batch plans the query and loads its classes (20 to 30 s on 2 cores): reported apart.
        List<ProgressLog.Batch> afterFirst = batches.size() > 1 ? batches.subList(1, batches.size()) : batches;
        ProgressLog.Batch last = batches.isEmpty() ? null : batches.get(batches.size() - 1);
        long stateRows;
        long stateMemory;
        long stateDisk;
        double perSlot = 0;
        if (side.spark()) {
            stateRows = last == null ? 0 : last.stateRows();
            stateMemory = last == null ? 0 : last.stateMemoryBytes();
            stateDisk = last == null ? 0 : last.sstBytes();
        } else if (side == BenchOptions.Side.OURS_EMBEDDED) {
            JsonNode store = stats.path("store");
            stateRows = store.path("occupied_slots").asLong();
            stateMemory = store.path("file_bytes").asLong();
            stateDisk = stateMemory;
            perSlot = (double) stateMemory / store.path("slots").asLong();
        } else {
            stateRows = 0;
            for (JsonNode shard : stats.path("store").path("shards")) {
                for (JsonNode table : shard.path("tables")) {
                    stateRows += table.path("claims").asLong();
                }
            }
            stateMemory = redisAfter - redisBefore;
            stateDisk = 0;
        }
        return new SideResult(
                side.label,
                traffic.copies().size(),
                traffic.messages().size(),
                check.lost(),
                check.countedTwice(),
                check.aggregatesExact(),
                Sink.byKind(traffic, lost).toString(),
                Sink.byKind(traffic, twice).toString(),
                batches.size(),
                batches.isEmpty() ? 0 : batches.get(0).durationMs(),
                ProgressLog.durationQuantile(afterFirst, 0.5),
                ProgressLog.durationQuantile(afterFirst, 0.99),
                ProgressLog.durationQuantile(afterFirst, 1.0),
                stateRows,
                stateMemory,
                stateDisk,
                perSlot,
                checkpointFiles.values().stream().mapToLong(Long::longValue).sum(),
                directorySize(dir.resolve("checkpoint")),
                batches.stream().mapToLong(ProgressLog.Batch::heapUsed).max().orElse(0),
                driverRss.get(),
                agentRss.get(),
                jobCpuEnd - jobCpuStart,
                agent == null ? -1 : agentCpuEnd - agentCpuStart,
                shardDelay == null ? -1 : proxyCpuEnd - proxyCpuStart,
                drain,
                lagAtEnd,
                caughtUp,
                recovery(batches, killedAt.get(), options.trigger().toMillis()));
    }

    private void startJob(Path progress) throws IOException {
        List<String> args = new ArrayList<>(List.of(
                "side=" + side.label,
                "bootstrap=" + broker.bootstrap(),
                "topic=" + topic,
                "checkpoint=" + dir.resolve("checkpoint"),
                "jdbc=" + db.url(),
                "progress=" + progress,
                "window=" + options.window().toSeconds(),
                "trigger=" + options.trigger().toMillis(),
                // far above a trigger's worth of records, so that only a job catching up is held to it
                "max-offsets="
                        + Math.max(
                                10_000,
                                options.rate()
                                        * 20L
                                        * Math.max(1, options.trigger().toSeconds()))));
        if (agent != null) {
            args.add("agents=" + agent.uri());
        }
        List<String> jvm = new ArrayList<>(List.of("-Xmx1g"));
        jvm.addAll(List.of(System.getProperty("pipeline.spark.jvm.flags", "").split("\\s+")));
        jvm.removeIf(String::isEmpty);
        jobStarts++;
        List<String> cmd = new ArrayList<>(List.of(ChildJvm.javaBin()));
        cmd.addAll(jvm);
        cmd.add("-cp");
        cmd.add(side == BenchOptions.Side.SPARK_35 ? ChildJvm.classpathOnSpark35("2.13") : ChildJvm.classpath());
        cmd.add(BenchQuery.class.getName());
        cmd.addAll(args);
        job.set(ChildJvm.exec("spark job " + side.label, dir.resolve("spark-" + jobStarts + ".log"), cmd));
    }

    /** {@code kill -9} of the job mid-stream, then the same job again on its checkpoint. */
    private void killAndRestart(Path progress, AtomicLong killedAt) {
        try {
            sample();
            job.get().kill9();
            killedAt.set(System.currentTimeMillis());
            startJob(progress);
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(side.label + ": restart after kill -9 failed", e);
        }
    }

    /**
     * From the kill until the restarted job had caught up: the first batch after it that read all the source had when
     * planned and took no longer than the trigger interval, so that the next one started on time. The first batches
     * of a restart read all there is too, but what arrived meanwhile makes the next ones long.
     */
    private static long recovery(List<ProgressLog.Batch> batches, long killedAt, long triggerMillis) {
        if (killedAt < 0) {
            return -1;
        }
        for (ProgressLog.Batch b : batches) {
            if (b.at() > killedAt
                    && b.latestOffsets() >= 0
                    && b.endOffsets() >= b.latestOffsets()
                    && b.durationMs() <= triggerMillis) {
                return b.at() - killedAt;
            }
        }
        return -1;
    }

    private void sample() {
        ChildJvm j = job.get();
        if (j != null && j.isAlive()) {
            driverRss.accumulateAndGet(Proc.rssBytes(j.pid()), Math::max);
            long cpu = Proc.cpuMillis(j.pid());
            if (cpu > 0) {
                jobCpu.put(j.pid(), cpu);
            }
        }
        if (agent != null) {
            agentRss.accumulateAndGet(Proc.rssBytes(agent.pid()), Math::max);
        }
        Path checkpoint = dir.resolve("checkpoint");
        if (Files.isDirectory(checkpoint)) {
            try (Stream<Path> files = Files.walk(checkpoint)) {
                // Spark writes a file under a hidden temporary name, then renames it; its .crc files are hidden too
                files.filter(p -> !p.getFileName().toString().startsWith("."))
                        .filter(Files::isRegularFile)
                        .forEach(p -> {
                            try {
                                checkpointFiles.merge(p, Files.size(p), Math::max);
                            } catch (IOException deletedMeanwhile) {
                                // an old version Spark removed: it was counted when it was seen
                            }
                        });
            } catch (IOException | java.io.UncheckedIOException changedMeanwhile) {
                // a directory removed while walked: the next sample sees the rest
            }
        }
    }

    private long jobCpuMillis() {
        sample();
        return jobCpu.values().stream().mapToLong(Long::longValue).sum();
    }

    private long agentCpuMillis() {
        if (agent == null) {
            return 0;
        }
        long cpu = Proc.cpuMillis(agent.pid());
        for (RedisServer s : shards) {
            cpu += Proc.cpuMillis(s.pid());
        }
        return cpu;
    }

    private long proxyCpuMillis() {
        return shardDelay == null ? 0 : Proc.cpuMillis(shardDelay.pid());
    }

    private long usedMemory() throws IOException {
        long sum = 0;
        for (RedisServer s : shards) {
            sum += s.info("memory", "used_memory");
        }
        return sum;
    }

    private JsonNode stats() throws IOException, InterruptedException {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(agent.uri() + "/v1/stats"))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("/v1/stats answered " + r.statusCode() + ": " + r.body());
        }
        return JSON.readTree(r.body());
    }

    private static long directorySize(Path root) throws IOException {
        if (!Files.isDirectory(root)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    @Override
    public void close() throws Exception {
        sampler.shutdownNow();
        ChildJvm j = job.get();
        if (j != null) {
            j.close();
        }
        if (agent != null) {
            agent.close();
        }
        if (shardDelay != null) {
            shardDelay.close();
        }
        shards.forEach(RedisServer::close);
        if (db != null) {
            db.close();
        }
    }
}
