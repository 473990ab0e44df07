package dev.dedup.examples.testing;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the Python member's SQLite sink holds (its {@code dump}), checked against {@link Traffic} the way
 * {@link Sink#check} checks the PostgreSQL sink: lost ids, ids applied more than once, unknown ids, aggregates.
 */
public final class PythonSink {

    public static Sink.Check check(List<String> dump, Traffic traffic) {
        Map<String, Integer> times = new HashMap<>();
        Map<String, Map<Long, long[]>> actual = new HashMap<>();
        for (String line : dump) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "AUDIT" -> times.put(f[1], Integer.parseInt(f[2]));
                case "COUNT" ->
                    actual.computeIfAbsent(f[1], k -> new HashMap<>())
                            .put(Long.parseLong(f[2]), new long[] {Long.parseLong(f[3]), Long.parseLong(f[4])});
                default -> {
                    // OFFSET lines, and anything the interpreter printed
                }
            }
        }
        return Sink.compare(times, traffic, Sink.sameAggregates(traffic.expectedAggregates(), actual), lost -> {});
    }

    private PythonSink() {}
}
