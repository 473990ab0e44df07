package dev.dedup.loadtest;

import dev.dedup.loadtest.driver.Target;
import dev.dedup.loadtest.workload.Format;
import dev.dedup.loadtest.workload.Scenario;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A load run, as given on the command line (see {@link CommandLine} for the flags and their defaults).
 *
 * @param targets   agents to send to; workers round-robin over them
 * @param workers   requests in flight, each worker with its own connection to each target
 * @param batch     items per request
 * @param ids       distinct ids each scenario sends
 * @param format    request format
 * @param namespace namespace of every request
 * @param scenarios scenarios in the order they run
 * @param seed      key of the id derivation
 * @param runId     the run id the ids derive from
 * @param runIdGiven true when {@code --run-id} was given (the ids may have been claimed by an earlier run)
 * @param warmup    ids sent before measuring, never measured, never the same as the measured ones
 * @param json      also print one JSON line per scenario
 * @param quiet     no progress lines
 * @param maxErrors failed requests tolerated before the run stops and exits 1
 * @param timeout   per request
 * @param direct    Redis URIs to send to directly with Tapjoy's design instead of to agents, or empty
 * @param mix       the mixed pass's duplicates and replays
 * @param rate      ids per second offered, or 0 for as fast as answers come back
 * @param report    where to write the HTML report, or null
 * @param eventEpoch epoch second of event second 0, sent as each item's {@code "ts"}; 0: no event times
 * @param redisPids processes whose CPU time per id each scenario reports as the shards' (empty: none)
 * @param agentPids processes whose CPU time per id each scenario reports as the agents' (empty: none)
 * @param resend    send a failed batch again, to the next target, until it is answered
 * @param samples   where to append a JSON line every {@code sampleEvery} while the run goes, or null
 * @param sampleEvery the interval of {@code samples}
 */
public record LoadOptions(
        List<Target> targets,
        int workers,
        int batch,
        int ids,
        Format format,
        String namespace,
        List<Scenario> scenarios,
        long seed,
        String runId,
        boolean runIdGiven,
        int warmup,
        boolean json,
        boolean quiet,
        long maxErrors,
        Duration timeout,
        List<String> direct,
        Mix mix,
        double rate,
        Path report,
        long eventEpoch,
        List<Long> redisPids,
        List<Long> agentPids,
        boolean resend,
        Path samples,
        Duration sampleEvery) {

    /**
     * The mixed pass: a share {@code dupRate} of messages written twice by the producer, a share
     * {@code retryRate} of batches replayed, each placed a few batches plus up to {@code spread} items later.
     */
    public record Mix(double dupRate, double retryRate, int spread) {
        public static final Mix DEFAULT = new Mix(0.05, 0.02, 500_000);
    }

    public static final String DEFAULT_TARGET = "http://127.0.0.1:7070";
    public static final int DEFAULT_WORKERS = 4;
    public static final int DEFAULT_BATCH = 1000;
    public static final int DEFAULT_IDS = 1_000_000;
    public static final String DEFAULT_NAMESPACE = "loadtest";
    public static final long DEFAULT_SEED = 1;
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_SAMPLE_EVERY = Duration.ofSeconds(30);
    public static final int MAX_WORKERS = 4096;
    public static final int MAX_BATCH = 1_000_000;
    /** One byte of ledger per id, plus the encoded bodies: a bound that keeps a run within a few GiB. */
    public static final int MAX_IDS = 100_000_000;

    public LoadOptions {
        targets = List.copyOf(targets);
        scenarios = List.copyOf(scenarios);
        direct = List.copyOf(direct);
        redisPids = List.copyOf(redisPids);
        agentPids = List.copyOf(agentPids);
    }

    public boolean isDirect() {
        return !direct.isEmpty();
    }

    public String scenarioNames() {
        return String.join(",", scenarios.stream().map(Scenario::cliName).toList());
    }
}
