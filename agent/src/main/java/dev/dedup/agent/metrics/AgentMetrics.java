package dev.dedup.agent.metrics;

import dev.dedup.wire.Verdict;
import dev.dedup.wire.WireFormat;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The agent's meters, registered once and reused: counting costs an add per batch, not a lookup per item.
 * Backed by a Prometheus registry whose text {@link #scrape()} serves {@code GET /metrics}, which also carries
 * the process's own health from Micrometer's binders: garbage collection from the start; heap and other memory
 * pools, threads, classes, CPU, uptime and open files once {@link #bindProcessMeters} has run ({@code jvm_*},
 * {@code process_*}, {@code system_*}). {@link #close} unhooks the GC listener.
 */
public final class AgentMetrics implements AutoCloseable {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Counter[] claims = new Counter[Verdict.values().length];
    private final Counter late;
    private final Counter connectionsRefused;
    private final Counter tokensApplied;
    private final Counter tokensRefused;
    private final Counter tlsApplied;
    private final Counter tlsRefused;
    private final Counter released;
    private final Counter notHeld;
    private final DistributionSummary claimBatchItems;
    private final DistributionSummary releaseBatchItems;
    /** Counters registered on first use, by a key of their name and tags. */
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    private final Map<String, Timer> requests = new ConcurrentHashMap<>();
    /**
     * Listens to the JVM's GC notifications from the start until closed: its pause timers exist once a collection
     * has been seen, and the collections of a start are the first ones.
     */
    private final JvmGcMetrics gc = new JvmGcMetrics();

    private boolean processMetersBound;

    /** The meters of an agent of this build ({@link BuildInfo#current()}). */
    public AgentMetrics() {
        this(BuildInfo.current());
    }

    /** The meters of an agent of {@code build}, which {@code dedup_build_info} reports. */
    public AgentMetrics(BuildInfo build) {
        gc.bindTo(registry);
        Gauge.builder(MetricNames.BUILD_INFO, () -> 1)
                .tags(MetricNames.TAG_VERSION, build.version(), MetricNames.TAG_JAVA, build.java())
                .description("Which build of the agent runs, on which Java; always 1")
                .register(registry);
        for (Verdict v : Verdict.values()) {
            claims[v.ordinal()] = Counter.builder(MetricNames.CLAIMS)
                    .tag(MetricNames.TAG_VERDICT, v.wireName())
                    .description("Items claimed, by verdict")
                    .register(registry);
        }
        late = Counter.builder(MetricNames.CLAIMS_LATE)
                .description("Items claimed a window or more behind their namespace's event clock")
                .register(registry);
        tokensApplied = tokenReloads("applied");
        tokensRefused = tokenReloads("refused");
        tlsApplied = tlsReloads("applied");
        tlsRefused = tlsReloads("refused");
        connectionsRefused = Counter.builder(MetricNames.CONNECTIONS_REFUSED)
                .description("Connections closed as soon as they were accepted: the agent held max-connections")
                .register(registry);
        released = Counter.builder(MetricNames.RELEASES)
                .tag(MetricNames.TAG_RESULT, "released")
                .description("Items released, by result")
                .register(registry);
        notHeld = Counter.builder(MetricNames.RELEASES)
                .tag(MetricNames.TAG_RESULT, "not_held")
                .description("Items released, by result")
                .register(registry);
        claimBatchItems = batchItems("claims");
        releaseBatchItems = batchItems("releases");
    }

    /**
     * Registers the process's other meters (memory pools, threads, classes, CPU, uptime, files). The agent calls
     * it once it listens: at one core the binders' look-ups of memory pools and the operating system take 30 ms,
     * which a start need not wait for. Once only; later calls do nothing.
     */
    public synchronized void bindProcessMeters() {
        if (processMetersBound) {
            return;
        }
        processMetersBound = true;
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
    }

    private DistributionSummary batchItems(String endpoint) {
        return DistributionSummary.builder(MetricNames.BATCH_ITEMS)
                .tag(MetricNames.TAG_ENDPOINT, endpoint)
                .description("Items per accepted request")
                .serviceLevelObjectives(1, 10, 100, 1000, 10_000)
                .register(registry);
    }

    public MeterRegistry registry() {
        return registry;
    }

    private Counter tokenReloads(String result) {
        return Counter.builder(MetricNames.TOKEN_FILE_RELOADS)
                .tag(MetricNames.TAG_RESULT, result)
                .description("Token files read again after a change: applied, or refused (the tokens before stay)")
                .register(registry);
    }

    private Counter tlsReloads(String result) {
        return Counter.builder(MetricNames.TLS_RELOADS)
                .tag(MetricNames.TAG_RESULT, result)
                .description("TLS certificate files read again after a change: applied, or refused (the pair before"
                        + " is still served)")
                .register(registry);
    }

    /** Counts the TLS certificate files read again after a change, {@code applied} or not. */
    public void tlsReloaded(boolean applied) {
        (applied ? tlsApplied : tlsRefused).increment();
    }

    /** Counts a token file read again after a change, {@code applied} or not. */
    public void tokenFileReloaded(boolean applied) {
        (applied ? tokensApplied : tokensRefused).increment();
    }

    /** Counts a connection closed as soon as it was accepted ({@link MetricNames#CONNECTIONS_REFUSED}). */
    public void connectionRefused() {
        connectionsRefused.increment();
    }

    /** Counts {@code n} late items of one claimed batch. */
    public void recordLate(int n) {
        late.increment(n);
    }

    /** Counts the verdicts of one claimed batch. */
    public void recordClaims(byte[] codes) {
        long[] counts = new long[claims.length];
        for (byte c : codes) {
            counts[c]++;
        }
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) {
                claims[i].increment(counts[i]);
            }
        }
        claimBatchItems.record(codes.length);
    }

    /** Counts the results of one released batch. */
    public void recordReleases(byte[] results) {
        long n = 0;
        for (byte r : results) {
            n += r;
        }
        released.increment(n);
        notHeld.increment(results.length - n);
        releaseBatchItems.record(results.length);
    }

    /** {@code count} ranges checked, of which {@code done} ({@code none}, {@code partial}, {@code all}) was committed. */
    public void recordRangesChecked(String done, long count) {
        if (count > 0) {
            counters.computeIfAbsent(
                            "ranges.checked:" + done,
                            k -> Counter.builder(MetricNames.RANGES_CHECKED)
                                    .tag(MetricNames.TAG_DONE, done)
                                    .description("Ranges of ordered streams checked, by how much was committed already")
                                    .register(registry))
                    .increment(count);
        }
    }

    public void recordRangesCommitted(long count) {
        counters.computeIfAbsent(
                        "ranges.committed",
                        k -> Counter.builder(MetricNames.RANGES_COMMITTED)
                                .description("Ranges of ordered streams committed")
                                .register(registry))
                .increment(count);
    }

    public void recordError(String kind) {
        counters.computeIfAbsent(
                        kind,
                        k -> Counter.builder(MetricNames.ERRORS)
                                .tag(MetricNames.TAG_KIND, k)
                                .description("Rejected or failed requests, by error code")
                                .register(registry))
                .increment();
    }

    /** A store failure, by its kind ({@code timeout}, {@code connection}, {@code oom}, ...). */
    public void recordStoreError(String kind) {
        counters.computeIfAbsent(
                        "store:" + kind,
                        k -> Counter.builder(MetricNames.STORE_ERRORS)
                                .tag(MetricNames.TAG_KIND, kind)
                                .description("Store failures, by kind")
                                .register(registry))
                .increment();
    }

    /** A request's time, tagged by endpoint, the {@link WireFormat#label() format} and the outcome. */
    public void recordRequest(String endpoint, WireFormat format, String outcome, long nanos) {
        String key = endpoint + '|' + format.label() + '|' + outcome;
        requests.computeIfAbsent(
                        key,
                        k -> Timer.builder(MetricNames.REQUESTS)
                                .tags(
                                        MetricNames.TAG_ENDPOINT,
                                        endpoint,
                                        MetricNames.TAG_FORMAT,
                                        format.label(),
                                        MetricNames.TAG_OUTCOME,
                                        outcome)
                                .description("Claim and release requests")
                                .publishPercentileHistogram()
                                .register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /** Totals by verdict, for {@code /v1/stats}. */
    public Map<String, Long> claimTotals() {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Verdict v : Verdict.values()) {
            out.put(v.wireName(), (long) claims[v.ordinal()].count());
        }
        return out;
    }

    /** Totals by result, for {@code /v1/stats}. */
    public Map<String, Long> releaseTotals() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("released", (long) released.count());
        out.put("not_held", (long) notHeld.count());
        return out;
    }

    /** Prometheus text format. */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
    }
}
