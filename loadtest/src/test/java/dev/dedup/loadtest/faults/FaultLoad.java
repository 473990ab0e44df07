package dev.dedup.loadtest.faults;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.loadtest.driver.Completions;
import dev.dedup.loadtest.workload.Format;
import dev.dedup.loadtest.workload.IdSpace;
import dev.dedup.loadtest.workload.Ledger;
import dev.dedup.loadtest.workload.PreparedBatch;
import dev.dedup.loadtest.workload.SendPlan;
import dev.dedup.loadtest.workload.VerdictTally;
import dev.dedup.loadtest.workload.Workload;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load on two (or more) agents through a network fault, checked by the load generator's exactly-once ledger.
 *
 * <p>Each agent gets a stream of its own: the generator's mixed plan over ids of their own (originals, the
 * producer's second writes under another owner, whole batches replayed by their owner), its {@link Ledger} and the
 * generator's {@link Completions}, so that a copy is sent only once the batch holding the copy before it is
 * answered. A worker resends a batch answered 503 (or not at all) to the same agent until it is answered 200, as a
 * worker beside its sidecar would. After the run every id answered is sent once more by a new owner through another
 * agent, which must answer {@code duplicate}.
 *
 * <p>Counted: false drops (a first copy answered {@code duplicate}: must be 0 under every fault), acknowledged claims
 * lost (an id answered {@code new} twice, in the run or by the final copies), 503 answers and the time batches
 * spent being refused.
 */
final class FaultLoad {

    static final String NS = "faults";
    /** How long a worker waits before resending a refused batch (shorter than Retry-After, to measure finely). */
    private static final long RESEND_PAUSE_MILLIS = 100;
    /** A batch still refused after this long means the agent does not recover: the run stops and says so. */
    private static final long GIVE_UP_NANOS = 90_000_000_000L;

    private final List<Stream> streams = new ArrayList<>();
    private final List<Thread> workers = new ArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final List<String> problems = Collections.synchronizedList(new ArrayList<>());
    private final Map<String, Long> refusalReasons = new ConcurrentHashMap<>();
    private final List<long[]> refusedSpans = Collections.synchronizedList(new ArrayList<>());
    private volatile double nanosPerId;
    private volatile long startNanos;

    /** One agent's ids, ledger and accounting. */
    private static final class Stream {
        final int index;
        final AgentHttp agent;
        final IdSpace ids;
        final SendPlan plan;
        final Workload workload;
        final int batchSize;
        final Completions completions = new Completions();
        final AtomicInteger cursor = new AtomicInteger();
        final AtomicIntegerArray news;
        final AtomicIntegerArray answered;
        final VerdictTally tally = new VerdictTally();
        final AtomicLong refusals = new AtomicLong();
        final AtomicLong lastRefusalNanos = new AtomicLong();
        final AtomicLong idsAnswered = new AtomicLong();
        final AtomicLong newAnswers = new AtomicLong();

        Stream(int index, AgentHttp agent, String runId, int ids, int batchSize) {
            this.index = index;
            this.agent = agent;
            this.batchSize = batchSize;
            this.ids = new IdSpace(runId, 1, index);
            // A fifth of the messages written twice, a twentieth of the batches replayed, each within ~30 batches.
            this.plan = SendPlan.mixed(ids, 0.2, 0.05, batchSize, 30 * batchSize, 1 + index);
            this.workload =
                    Workload.prepare("faults-" + index, plan, this.ids, new Ledger(ids), NS, Format.BINARY, batchSize);
            this.news = new AtomicIntegerArray(ids);
            this.answered = new AtomicIntegerArray(ids);
        }

        int idIndex(int batch, int item) {
            return plan.indexes()[batch * batchSize + item];
        }
    }

    /** Prepares {@code idsPerAgent} ids per agent (more than a run sends: it stops taking batches when told). */
    FaultLoad(List<AgentHttp> agents, String runId, int idsPerAgent, int batchSize) {
        for (int a = 0; a < agents.size(); a++) {
            streams.add(new Stream(a, agents.get(a), runId, idsPerAgent, batchSize));
        }
    }

    /**
     * Starts {@code workersPerAgent} workers on each agent, offering {@code idsPerSecond} to each: batch {@code b} is
     * due {@code b * batch / idsPerSecond} after the start, and a stream behind its schedule (after a fault) sends as
     * fast as it is answered until it catches up, as a consumer with a backlog does.
     */
    void start(int workersPerAgent, double idsPerSecond) {
        this.nanosPerId = 1e9 / idsPerSecond;
        this.startNanos = System.nanoTime();
        for (Stream s : streams) {
            for (int w = 0; w < workersPerAgent; w++) {
                Thread t = new Thread(() -> work(s), "fault-load-" + s.index + "-" + w);
                t.setDaemon(true);
                workers.add(t);
                t.start();
            }
        }
    }

    private void work(Stream s) {
        List<PreparedBatch> batches = s.workload.batches();
        VerdictTally tally = new VerdictTally();
        try {
            int b;
            while (!stop.get() && (b = s.cursor.getAndIncrement()) < batches.size()) {
                PreparedBatch batch = batches.get(b);
                long due = startNanos + (long) ((double) b * s.batchSize * nanosPerId);
                while (System.nanoTime() < due || !s.completions.allDoneUpTo(batch.dependsOn())) {
                    Thread.sleep(1);
                }
                byte[] verdicts = sendUntilAnswered(s, batch.body(), batch.items());
                if (verdicts == null) {
                    stop.set(true);
                    s.completions.complete(b);
                    return;
                }
                tally.record(batch.expected(), verdicts);
                for (int k = 0; k < verdicts.length; k++) {
                    int id = s.idIndex(b, k);
                    s.answered.set(id, 1);
                    if (verdicts[k] == Verdict.NEW.code()) {
                        s.news.incrementAndGet(id);
                        s.newAnswers.incrementAndGet();
                    }
                }
                s.idsAnswered.addAndGet(verdicts.length);
                s.completions.complete(b);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            synchronized (s.tally) {
                s.tally.add(tally);
            }
        }
    }

    /**
     * Posts {@code body} to the stream's agent until it answers 200, and returns the verdict codes; null (and a
     * problem noted) when that takes longer than {@link #GIVE_UP_NANOS} or the agent answers anything but 200/503.
     */
    private byte[] sendUntilAnswered(Stream s, byte[] body, int items) throws InterruptedException {
        long firstRefusal = -1;
        while (true) {
            long start = System.nanoTime();
            String refused;
            try {
                HttpResponse<byte[]> r = s.agent.post("/v1/claims", AgentHttp.BINARY, body);
                if (r.statusCode() == 200 && r.body().length == items) {
                    if (firstRefusal >= 0) {
                        refusedSpans.add(new long[] {firstRefusal, System.nanoTime(), s.index});
                    }
                    return r.body();
                }
                if (r.statusCode() != 503) {
                    problems.add("agent " + s.index + " answered " + r.statusCode() + ": " + AgentHttp.text(r));
                    return null;
                }
                refused = reason(AgentHttp.text(r));
            } catch (RuntimeException e) {
                refused = "no answer: " + e.getClass().getSimpleName();
            }
            s.refusals.incrementAndGet();
            s.lastRefusalNanos.set(System.nanoTime());
            refusalReasons.merge(refused, 1L, Long::sum);
            if (firstRefusal < 0) {
                firstRefusal = start;
            } else if (System.nanoTime() - firstRefusal > GIVE_UP_NANOS) {
                problems.add("agent " + s.index + " refused a batch for " + GIVE_UP_NANOS / 1_000_000_000 + " s: "
                        + refused);
                return null;
            }
            Thread.sleep(RESEND_PAUSE_MILLIS);
        }
    }

    /** A 503's message without the numbers and addresses that vary, so that alike refusals are counted together. */
    private static String reason(String body) {
        String text = body.replaceAll("\"[a-z_]+\":", "").replaceAll("[{}\"]", "");
        return text.replaceAll("[0-9.]+(:[0-9]+)?", "#").trim();
    }

    /**
     * Stops taking new batches and waits until every batch taken has been answered. A stream that ran out of batches
     * before is a problem: the load did not last as long as the fault's test.
     */
    void stop() throws InterruptedException {
        if (!stop.getAndSet(true)) {
            for (Stream s : streams) {
                if (s.cursor.get() >= s.workload.batches().size()) {
                    problems.add("agent " + s.index + "'s stream ran out of batches before the end: prepare more ids");
                }
            }
        }
        for (Thread t : workers) {
            t.join(GIVE_UP_NANOS / 1_000_000 + 30_000);
        }
    }

    /** Ids answered so far, over all agents. */
    long idsAnswered() {
        return streams.stream().mapToLong(s -> s.idsAnswered.get()).sum();
    }

    /** Ids agent {@code agent} has answered so far. */
    long idsAnswered(int agent) {
        return streams.get(agent).idsAnswered.get();
    }

    /** Ids agent {@code agent} has answered {@code new} so far: the claims it acknowledged. */
    long newAnswers(int agent) {
        return streams.get(agent).newAnswers.get();
    }

    /** Ids all agents have answered {@code new} so far. */
    long newAnswers() {
        return streams.stream().mapToLong(s -> s.newAnswers.get()).sum();
    }

    /** When an agent last refused a batch (System.nanoTime), or 0. */
    long lastRefusalNanos() {
        return streams.stream().mapToLong(s -> s.lastRefusalNanos.get()).max().orElse(0);
    }

    /**
     * Sends every id answered in the run once more, with a new owner, through the next agent: the answer must be
     * {@code duplicate}; {@code new} means the claim was lost.
     */
    void sendFinalCopies(int batchSize) throws InterruptedException {
        for (Stream s : streams) {
            Stream via = streams.get((s.index + 1) % streams.size());
            List<Integer> indexes = new ArrayList<>();
            for (int i = 0; i < s.answered.length(); i++) {
                if (s.answered.get(i) == 1) {
                    indexes.add(i);
                }
            }
            for (int from = 0; from < indexes.size(); from += batchSize) {
                List<Integer> chunk = indexes.subList(from, Math.min(indexes.size(), from + batchSize));
                List<Item> items = new ArrayList<>(chunk.size());
                for (int i : chunk) {
                    items.add(new Item(s.ids.id(i), "final-copy"));
                }
                byte[] verdicts = sendUntilAnswered(via, Format.BINARY.body(NS, items), items.size());
                if (verdicts == null) {
                    return;
                }
                for (int k = 0; k < verdicts.length; k++) {
                    if (verdicts[k] == Verdict.NEW.code()) {
                        s.news.incrementAndGet(chunk.get(k));
                    } else if (verdicts[k] != Verdict.DUPLICATE.code()) {
                        problems.add("a final copy by a new owner answered " + Verdict.ofCode(verdicts[k]));
                    }
                }
            }
        }
    }

    /** What a run saw. */
    record Outcome(
            long ids,
            List<Long> idsPerAgent,
            long refusals,
            List<Long> refusalsPerAgent,
            double refusedSeconds,
            List<Double> refusedSecondsPerAgent,
            long falseDrops,
            long lostClaims,
            List<Long> lostPerAgent,
            long missedDuplicates,
            Map<String, Long> refusalReasons,
            List<String> problems) {

        String summary() {
            return String.format(
                    java.util.Locale.ROOT,
                    "%,d ids answered %s; %d answers 503 %s over %.1f s %s; %d false drops; %d acknowledged claims lost"
                            + " %s (%d second writes answered new in the run); 503s: %s%s",
                    ids,
                    idsPerAgent,
                    refusals,
                    refusalsPerAgent,
                    refusedSeconds,
                    refusedSecondsPerAgent.stream()
                            .map(x -> String.format(java.util.Locale.ROOT, "%.1f s", x))
                            .toList(),
                    falseDrops,
                    lostClaims,
                    lostPerAgent,
                    missedDuplicates,
                    refusalReasons,
                    problems.isEmpty() ? "" : "; problems: " + problems);
        }
    }

    Outcome outcome() {
        long ids = 0;
        long refusals = 0;
        long falseDrops = 0;
        long lost = 0;
        long missed = 0;
        List<Long> lostPerAgent = new ArrayList<>();
        for (Stream s : streams) {
            long lostBefore = lost;
            ids += s.idsAnswered.get();
            refusals += s.refusals.get();
            synchronized (s.tally) {
                falseDrops += s.tally.falseDrops();
                missed += s.tally.missedDuplicates();
            }
            for (int i = 0; i < s.news.length(); i++) {
                if (s.news.get(i) > 1) {
                    lost++;
                }
            }
            lostPerAgent.add(lost - lostBefore);
        }
        return new Outcome(
                ids,
                streams.stream().map(s -> s.idsAnswered.get()).toList(),
                refusals,
                streams.stream().map(s -> s.refusals.get()).toList(),
                refusedSeconds(-1),
                streams.stream().map(s -> refusedSeconds(s.index)).toList(),
                falseDrops,
                lost,
                lostPerAgent,
                missed,
                new TreeMap<>(refusalReasons),
                List.copyOf(problems));
    }

    /**
     * The time during which some batch was being refused, by agent {@code agent} or any (-1): the union of each
     * refused batch's span.
     */
    private double refusedSeconds(int agent) {
        List<long[]> spans = new ArrayList<>(refusedSpans);
        spans.removeIf(span -> agent >= 0 && span[2] != agent);
        if (spans.isEmpty()) {
            return 0;
        }
        spans.sort((x, y) -> Long.compare(x[0], y[0]));
        long total = 0;
        long start = Long.MIN_VALUE;
        long end = Long.MIN_VALUE;
        for (long[] span : spans) {
            if (span[0] > end) {
                total += end - start;
                start = span[0];
                end = span[1];
            } else {
                end = Math.max(end, span[1]);
            }
        }
        total += end - start;
        return total / 1e9;
    }
}
