package dev.dedup.examples.testing;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The counts consumer members print, one line per batch ({@code VERDICTS new=.. retry=.. duplicate=..},
 * {@code RELEASED n}): summed over every member's log, those of members killed with {@code kill -9} included.
 */
public final class Members {

    public record Counts(long fresh, long retried, long duplicates, long released) {
        public Counts plus(Counts o) {
            return new Counts(fresh + o.fresh, retried + o.retried, duplicates + o.duplicates, released + o.released);
        }

        @Override
        public String toString() {
            return "new " + fresh + ", retry " + retried + ", duplicate " + duplicates + ", released " + released;
        }
    }

    private static final Pattern VERDICTS = Pattern.compile("VERDICTS new=(\\d+) retry=(\\d+) duplicate=(\\d+)");
    private static final Pattern RELEASED = Pattern.compile("RELEASED (\\d+)");

    public static Counts counts(List<ChildJvm> members) {
        Counts total = new Counts(0, 0, 0, 0);
        for (ChildJvm m : members) {
            for (String line : m.output().split("\n")) {
                Matcher v = VERDICTS.matcher(line);
                if (v.find()) {
                    total = total.plus(new Counts(
                            Long.parseLong(v.group(1)), Long.parseLong(v.group(2)), Long.parseLong(v.group(3)), 0));
                }
                Matcher r = RELEASED.matcher(line);
                if (r.find()) {
                    total = total.plus(new Counts(0, 0, 0, Long.parseLong(r.group(1))));
                }
            }
        }
        return total;
    }

    private Members() {}
}
