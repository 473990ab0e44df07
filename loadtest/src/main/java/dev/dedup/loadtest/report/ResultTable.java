package dev.dedup.loadtest.report;

import dev.dedup.wire.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The end-of-run table: one row per scenario, columns right-aligned, followed by error reasons if any. */
public final class ResultTable {

    private static final String[] HEADERS = {
        "scenario",
        "ids",
        "seconds",
        "ids/s",
        "req/s",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "p99.9 ms",
        "max ms",
        "new",
        "retry",
        "duplicate",
        "false_drops",
        "missed_dups",
        "unexpected",
        "errors"
    };

    private ResultTable() {}

    public static String render(List<ScenarioResult> results) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADERS);
        for (ScenarioResult r : results) {
            rows.add(new String[] {
                r.scenario() + (r.aborted() ? " (aborted)" : ""),
                count(r.ids()),
                String.format(Locale.ROOT, "%.2f", r.seconds()),
                count(Math.round(r.idsPerSecond())),
                count(Math.round(r.requestsPerSecond())),
                millis(r.latencyMillis(50)),
                millis(r.latencyMillis(90)),
                millis(r.latencyMillis(99)),
                millis(r.latencyMillis(99.9)),
                millis(r.maxLatencyMillis()),
                count(r.tally().count(Verdict.NEW)),
                count(r.tally().count(Verdict.RETRY)),
                count(r.tally().count(Verdict.DUPLICATE)),
                count(r.tally().falseDrops()),
                count(r.tally().missedDuplicates()),
                count(r.tally().unexpected()),
                count(r.errorCount()),
            });
        }
        int[] widths = new int[HEADERS.length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                if (c == 0) {
                    sb.append(String.format("%-" + widths[c] + "s", row[c]));
                } else {
                    sb.append("  ").append(String.format("%" + widths[c] + "s", row[c]));
                }
            }
            sb.append('\n');
        }
        for (ScenarioResult r : results) {
            if (!r.errors().isEmpty()) {
                sb.append(r.scenario())
                        .append(" errors by status: ")
                        .append(r.errors())
                        .append('\n');
            }
        }
        return sb.toString();
    }

    private static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    private static String millis(double ms) {
        return String.format(Locale.ROOT, "%.2f", ms);
    }
}
