package dev.dedup.loadtest.report;

import dev.dedup.loadtest.driver.Timeline;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * {@code --report FILE.html}: one self-contained page (inline SVG, no script, nothing fetched) with the
 * table of the run and, per scenario, its latency distribution (latency against percentile, on a scale of
 * nines) and its throughput over time (ids answered per second, in steps of {@link Timeline#TICK_MILLIS}).
 */
public final class HtmlReport {

    private static final int WIDTH = 560;
    private static final int HEIGHT = 260;
    private static final int LEFT = 64;
    private static final int BOTTOM = 36;
    private static final int TOP = 16;
    private static final int RIGHT = 16;
    /** Percentiles plotted: 1 - 10^(-k/20) for k = 0..100, i.e. up to 99.999 %. */
    private static final int NINES_STEPS = 100;

    private HtmlReport() {}

    public static void write(Path file, List<ScenarioResult> results, String target, String runId) throws IOException {
        Files.writeString(file, render(results, target, runId), StandardCharsets.UTF_8);
    }

    static String render(List<ScenarioResult> results, String target, String runId) {
        StringBuilder h = new StringBuilder(64 * 1024);
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<title>dedup-loadtest ")
                .append(escape(runId))
                .append("</title>")
                .append("<style>body{font:14px system-ui,sans-serif;margin:24px;color:#222}")
                .append(
                        "table{border-collapse:collapse}td,th{padding:3px 8px;text-align:right;border-bottom:1px solid #ddd}")
                .append("td:first-child,th:first-child{text-align:left}.bad{color:#b00;font-weight:bold}")
                .append("svg{background:#fafafa;margin:4px 12px 12px 0}.charts{display:flex;flex-wrap:wrap}")
                .append("text{font:11px system-ui,sans-serif;fill:#444}</style></head><body>\n");
        h.append("<h1>dedup-loadtest</h1><p>Target ")
                .append(escape(target))
                .append(" &middot; run-id ")
                .append(escape(runId))
                .append(" &middot; written ")
                .append(Instant.now())
                .append("</p>\n");
        h.append("<pre>").append(escape(ResultTable.render(results))).append("</pre>\n");
        for (ScenarioResult r : results) {
            h.append("<h2>")
                    .append(escape(r.scenario()))
                    .append("</h2><p>")
                    .append(String.format(
                            Locale.ROOT,
                            "%,d ids in %.2f s: %,.0f ids/s; batch %,d, %d workers, %s",
                            r.ids(),
                            r.seconds(),
                            r.idsPerSecond(),
                            r.batch(),
                            r.workers(),
                            r.encoding()));
            if (r.offeredRate() > 0) {
                h.append(String.format(Locale.ROOT, "; offered %,.0f ids/s", r.offeredRate()));
            }
            h.append(String.format(
                    Locale.ROOT,
                    "; new %,d, retry %,d, duplicate %,d",
                    r.tally().count(Verdict.NEW),
                    r.tally().count(Verdict.RETRY),
                    r.tally().count(Verdict.DUPLICATE)));
            String cls = r.tally().safe() ? "" : " class=\"bad\"";
            h.append("; <span")
                    .append(cls)
                    .append(">false drops ")
                    .append(r.tally().falseDrops())
                    .append(", missed duplicates ")
                    .append(r.tally().missedDuplicates())
                    .append("</span></p>\n");
            h.append("<div class=\"charts\">")
                    .append(latencyChart(r))
                    .append(throughputChart(r))
                    .append("</div>\n");
        }
        return h.append("</body></html>\n").toString();
    }

    /** Latency (ms, y) at each percentile, x spaced by nines: 0, 90, 99, 99.9, 99.99, 99.999. */
    static String latencyChart(ScenarioResult r) {
        int n = NINES_STEPS + 1;
        double[] x = new double[n];
        double[] y = new double[n];
        for (int k = 0; k < n; k++) {
            double percentile = 100 * (1 - Math.pow(10, -k / 20.0));
            x[k] = k / 20.0;
            y[k] = r.latencyMillis(percentile);
        }
        String[] ticks = {"0%", "90%", "99%", "99.9%", "99.99%", "99.999%"};
        StringBuilder svg = frame("latency (ms) by percentile", 5, maxOf(y));
        for (int t = 0; t < ticks.length; t++) {
            double px = LEFT + t / 5.0 * plotWidth();
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
                    px,
                    HEIGHT - BOTTOM + 14,
                    ticks[t]));
        }
        return svg.append(polyline(x, y, 5, maxOf(y), "#1f6fb2"))
                .append("</svg>")
                .toString();
    }

    /** Ids per second (y) against seconds since the start (x). */
    static String throughputChart(ScenarioResult r) {
        long[] ticks = r.idsPerTick();
        int n = Math.max(1, ticks.length);
        double[] x = new double[n];
        double[] y = new double[n];
        double perSecond = 1000.0 / Timeline.TICK_MILLIS;
        for (int t = 0; t < ticks.length; t++) {
            x[t] = (t + 1) * Timeline.TICK_MILLIS / 1000.0;
            y[t] = ticks[t] * perSecond;
        }
        double xMax = Math.max(x[n - 1], 0.1);
        StringBuilder svg = frame("ids answered per second over time (s)", xMax, maxOf(y));
        for (int t = 0; t <= 4; t++) {
            double px = LEFT + t / 4.0 * plotWidth();
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.1f</text>",
                    px,
                    HEIGHT - BOTTOM + 14,
                    xMax * t / 4));
        }
        return svg.append(polyline(x, y, xMax, maxOf(y), "#2a8a3a"))
                .append("</svg>")
                .toString();
    }

    private static StringBuilder frame(String title, double xMax, double yMax) {
        StringBuilder svg = new StringBuilder(4096);
        svg.append(String.format(
                Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">", WIDTH, HEIGHT));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>", LEFT, TOP - 4, escape(title)));
        svg.append(String.format(
                Locale.ROOT,
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/><line x1=\"%d\" y1=\"%d\" x2=\"%d\" "
                        + "y2=\"%d\" stroke=\"#888\"/>",
                LEFT,
                TOP,
                LEFT,
                HEIGHT - BOTTOM,
                LEFT,
                HEIGHT - BOTTOM,
                WIDTH - RIGHT,
                HEIGHT - BOTTOM));
        for (int t = 0; t <= 4; t++) {
            double value = yMax * t / 4;
            double py = HEIGHT - BOTTOM - t / 4.0 * plotHeight();
            svg.append(String.format(
                    Locale.ROOT,
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>"
                            + "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>",
                    LEFT - 6,
                    py + 4,
                    axisLabel(value),
                    LEFT,
                    py,
                    WIDTH - RIGHT,
                    py));
        }
        return svg;
    }

    private static String polyline(double[] x, double[] y, double xMax, double yMax, String color) {
        StringBuilder points = new StringBuilder();
        for (int i = 0; i < x.length; i++) {
            double px = LEFT + (xMax > 0 ? x[i] / xMax : 0) * plotWidth();
            double py = HEIGHT - BOTTOM - (yMax > 0 ? y[i] / yMax : 0) * plotHeight();
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
        }
        return "<polyline fill=\"none\" stroke=\"" + color + "\" stroke-width=\"1.5\" points=\""
                + points.toString().trim() + "\"/>";
    }

    private static double maxOf(double[] values) {
        double max = 0;
        for (double v : values) {
            max = Math.max(max, v);
        }
        return max > 0 ? max * 1.05 : 1;
    }

    private static String axisLabel(double v) {
        if (v >= 1_000_000) {
            return String.format(Locale.ROOT, "%.1fM", v / 1_000_000);
        }
        if (v >= 10_000) {
            return String.format(Locale.ROOT, "%.0fk", v / 1_000);
        }
        return v >= 10 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    private static int plotWidth() {
        return WIDTH - LEFT - RIGHT;
    }

    private static int plotHeight() {
        return HEIGHT - TOP - BOTTOM;
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
