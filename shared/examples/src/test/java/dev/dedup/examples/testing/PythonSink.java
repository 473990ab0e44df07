package dev.dedup.examples.testing;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
        Set<String> expected = new HashSet<>();
        traffic.messages().forEach(m -> expected.add(m.id()));
        Set<String> lost = new HashSet<>(expected);
        lost.removeAll(times.keySet());
        int twice = (int) times.entrySet().stream()
                .filter(e -> e.getValue() > 1 && expected.contains(e.getKey()))
                .count();
        int unknown = (int)
                times.keySet().stream().filter(id -> !expected.contains(id)).count();
        int applied = times.values().stream().mapToInt(Integer::intValue).sum();
        return new Sink.Check(
                expected.size(), applied, lost.size(), twice, unknown, same(traffic.expectedAggregates(), actual));
    }

    private static boolean same(Map<String, Map<Long, long[]>> expected, Map<String, Map<Long, long[]>> actual) {
        if (!expected.keySet().equals(actual.keySet())) {
            return false;
        }
        for (Map.Entry<String, Map<Long, long[]>> app : expected.entrySet()) {
            Map<Long, long[]> a = actual.get(app.getKey());
            if (!app.getValue().keySet().equals(a.keySet())) {
                return false;
            }
            for (Map.Entry<Long, long[]> minute : app.getValue().entrySet()) {
                long[] e = minute.getValue();
                long[] got = a.get(minute.getKey());
                if (e[0] != got[0] || e[1] != got[1]) {
                    return false;
                }
            }
        }
        return true;
    }

    private PythonSink() {}
}
