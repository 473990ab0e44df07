package dev.dedup.loadtest.report;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.Verdict;
import java.util.Locale;
import java.util.Map;

/**
 * One JSON object on one line per scenario ({@code --output json}), for scripts that collect runs. Fields:
 * {@code scenario, ids, seconds, ids_per_s, requests_per_s, p50_ms, p90_ms, p99_ms, p999_ms, max_ms, new,
 * retry, duplicate, false_drops, missed_duplicates, unexpected, errors, error_statuses, aborted, batch,
 * workers, format, offered_ids_per_s, [redis_cpu_us_per_id, agent_cpu_us_per_id,] target, run_id} (the CPU
 * fields with {@code --cpu-redis} and {@code --cpu-agent}).
 */
public final class JsonLine {

    private JsonLine() {}

    public static String render(ScenarioResult r, String target, String runId) {
        StringBuilder sb = new StringBuilder(512).append('{');
        string(sb, "scenario", r.scenario());
        number(sb, "ids", r.ids());
        decimal(sb, "seconds", r.seconds());
        decimal(sb, "ids_per_s", r.idsPerSecond());
        decimal(sb, "requests_per_s", r.requestsPerSecond());
        decimal(sb, "p50_ms", r.latencyMillis(50));
        decimal(sb, "p90_ms", r.latencyMillis(90));
        decimal(sb, "p99_ms", r.latencyMillis(99));
        decimal(sb, "p999_ms", r.latencyMillis(99.9));
        decimal(sb, "max_ms", r.maxLatencyMillis());
        number(sb, "new", r.tally().count(Verdict.NEW));
        number(sb, "retry", r.tally().count(Verdict.RETRY));
        number(sb, "duplicate", r.tally().count(Verdict.DUPLICATE));
        number(sb, "false_drops", r.tally().falseDrops());
        number(sb, "missed_duplicates", r.tally().missedDuplicates());
        number(sb, "unexpected", r.tally().unexpected());
        number(sb, "errors", r.errorCount());
        sb.append("\"error_statuses\":{");
        boolean first = true;
        for (Map.Entry<String, Long> e : r.errors().entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            BatchEncoder.quote(sb, e.getKey());
            sb.append(':').append(e.getValue());
        }
        sb.append("},");
        sb.append("\"aborted\":").append(r.aborted()).append(',');
        number(sb, "batch", r.batch());
        number(sb, "workers", r.workers());
        string(sb, "format", r.encoding());
        decimal(sb, "offered_ids_per_s", r.offeredRate());
        if (r.redisCpuMicrosPerId() >= 0) {
            decimal(sb, "redis_cpu_us_per_id", r.redisCpuMicrosPerId());
        }
        if (r.agentCpuMicrosPerId() >= 0) {
            decimal(sb, "agent_cpu_us_per_id", r.agentCpuMicrosPerId());
        }
        string(sb, "target", target);
        BatchEncoder.quote(sb, "run_id");
        sb.append(':');
        BatchEncoder.quote(sb, runId);
        return sb.append('}').toString();
    }

    private static void string(StringBuilder sb, String key, String value) {
        BatchEncoder.quote(sb, key);
        sb.append(':');
        BatchEncoder.quote(sb, value);
        sb.append(',');
    }

    private static void number(StringBuilder sb, String key, long value) {
        BatchEncoder.quote(sb, key);
        sb.append(':').append(value).append(',');
    }

    private static void decimal(StringBuilder sb, String key, double value) {
        BatchEncoder.quote(sb, key);
        sb.append(':').append(String.format(Locale.ROOT, "%.3f", value)).append(',');
    }
}
