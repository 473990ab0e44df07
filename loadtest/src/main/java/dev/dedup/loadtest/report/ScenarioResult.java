package dev.dedup.loadtest.report;

import dev.dedup.loadtest.workload.VerdictTally;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What one scenario measured.
 *
 * @param scenario       its name
 * @param ids            ids answered (items of successful requests)
 * @param requests       requests sent, answered or failed
 * @param seconds        from the first request sent to the last answer received
 * @param latencyMicros  latency of successful requests, in microseconds
 * @param tally          verdicts received and how they compare with the ledger
 * @param errors         failed requests by reason (HTTP status, {@code io:...}, {@code bad_response})
 * @param batch          items per request
 * @param workers        requests in flight
 * @param encoding       request format ({@code binary}, {@code json}) or {@code direct}
 * @param aborted        true when it stopped early because the error budget ran out
 * @param idsPerTick     ids answered in each {@link dev.dedup.loadtest.driver.Timeline#TICK_MILLIS} since the
 *                       start
 * @param offeredRate    the fixed load offered in ids per second, or 0 for as fast as possible
 * @param redisCpuMicrosPerId CPU the given Redis processes spent per id during the scenario, or -1 when not
 *                       measured ({@code --cpu-redis})
 * @param agentCpuMicrosPerId the same for the given agents ({@code --cpu-agent}), or -1
 */
public record ScenarioResult(
        String scenario,
        long ids,
        long requests,
        double seconds,
        Histogram latencyMicros,
        VerdictTally tally,
        Map<String, Long> errors,
        int batch,
        int workers,
        String encoding,
        boolean aborted,
        long[] idsPerTick,
        double offeredRate,
        double redisCpuMicrosPerId,
        double agentCpuMicrosPerId) {

    public ScenarioResult {
        errors = Map.copyOf(errors);
    }

    /** This result with the CPU per id of the measured processes. */
    public ScenarioResult withCpu(double redisMicrosPerId, double agentMicrosPerId) {
        return new ScenarioResult(
                scenario,
                ids,
                requests,
                seconds,
                latencyMicros,
                tally,
                errors,
                batch,
                workers,
                encoding,
                aborted,
                idsPerTick,
                offeredRate,
                redisMicrosPerId,
                agentMicrosPerId);
    }

    public double idsPerSecond() {
        return seconds > 0 ? ids / seconds : 0;
    }

    public double requestsPerSecond() {
        return seconds > 0 ? requests / seconds : 0;
    }

    /** Latency at {@code percentile} (0 to 100) in milliseconds; 0 when nothing was answered. */
    public double latencyMillis(double percentile) {
        return latencyMicros.getTotalCount() == 0 ? 0 : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
    }

    public double maxLatencyMillis() {
        return latencyMicros.getTotalCount() == 0 ? 0 : latencyMicros.getMaxValue() / 1000.0;
    }

    public long errorCount() {
        return errors.values().stream().mapToLong(Long::longValue).sum();
    }
}
