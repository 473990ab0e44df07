package dev.dedup.agent.config.value;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The values one setting accepts, declared once beside its default in its options record: a range ({@code 1 to
 * 1000000}, {@code at least 10ms}), a range of powers of two, a range besides an "off" value, or a list of
 * choices. The setting's declaration in {@link dev.dedup.agent.config.load.Settings} parses a value given by
 * flag, environment or file with it and writes it into {@code --help} and the configuration page; the record
 * checks a value built in code with the same bounds. A value outside them fails with
 * {@code <setting>: <value> is not valid; use <bounds>}.
 *
 * <p>Messages write numbers as the loader reads them ({@code 100000000}, {@code 1GiB}); the page writes them to
 * be read ({@code 100,000,000}, {@code 2^29}, {@code `1GiB`}).
 *
 * @param <T> the type of the setting's value
 */
public final class Bounds<T extends Comparable<? super T>> {

    private final Kind<T> kind;
    private final T min;
    private final T max;
    private final List<T> choices;
    private final T off;
    private final boolean powersOfTwo;
    private final String unit;

    /** How values of one type are read from a setting and written in a message or on the page. */
    private record Kind<T>(Function<RawValue, T> parse, Function<T, String> plain, Function<T, String> markdown) {}

    private static final Kind<Integer> INTS =
            new Kind<>(RawValue::integer, String::valueOf, n -> readable(n.longValue()));
    private static final Kind<Long> LONGS = new Kind<>(RawValue::longValue, String::valueOf, Bounds::readable);
    private static final Kind<Duration> DURATIONS =
            new Kind<>(RawValue::duration, Durations::format, d -> "`" + Durations.format(d) + "`");
    private static final Kind<Long> SIZES = new Kind<>(RawValue::size, Bounds::bytes, n -> {
        String bytes = bytes(n);
        return bytes.endsWith(" bytes") ? bytes : "`" + bytes + "`";
    });

    private Bounds(Kind<T> kind, T min, T max, List<T> choices, T off, boolean powersOfTwo, String unit) {
        this.kind = kind;
        this.min = min;
        this.max = max;
        this.choices = choices;
        this.off = off;
        this.powersOfTwo = powersOfTwo;
        this.unit = unit;
    }

    /** Whole numbers from {@code min} to {@code max}, both included. */
    public static Bounds<Integer> ints(int min, int max) {
        return new Bounds<>(INTS, min, max, null, null, false, "");
    }

    /** Whole numbers from {@code min} up. */
    public static Bounds<Integer> intsFrom(int min) {
        return new Bounds<>(INTS, min, null, null, null, false, "");
    }

    /** One of {@code choices}, the only values accepted. */
    public static Bounds<Integer> intChoices(Integer... choices) {
        return new Bounds<>(INTS, null, null, List.of(choices), null, false, "");
    }

    /** Whole numbers from {@code min} to {@code max}, both included, beyond an {@code int}'s range. */
    public static Bounds<Long> longs(long min, long max) {
        return new Bounds<>(LONGS, min, max, null, null, false, "");
    }

    /** Byte sizes ({@code 65536}, {@code 8MiB}) from {@code min} to {@code max}, both included. */
    public static Bounds<Long> sizes(long min, long max) {
        return new Bounds<>(SIZES, min, max, null, null, false, "");
    }

    /** Durations from {@code min} to {@code max}, both included. */
    public static Bounds<Duration> durations(Duration min, Duration max) {
        return new Bounds<>(DURATIONS, min, max, null, null, false, "");
    }

    /** Durations from {@code min} up. */
    public static Bounds<Duration> durationsFrom(Duration min) {
        return new Bounds<>(DURATIONS, min, null, null, null, false, "");
    }

    /** These bounds, only the powers of two among them. */
    public Bounds<T> powersOfTwo() {
        return new Bounds<>(kind, min, max, choices, off, true, unit);
    }

    /** These bounds and {@code value} besides, which turns the setting's component off. */
    public Bounds<T> orOff(T value) {
        return new Bounds<>(kind, min, max, choices, value, powersOfTwo, unit);
    }

    /** These bounds, their values counted in {@code what} ({@code ids per second}). */
    public Bounds<T> in(String what) {
        return new Bounds<>(kind, min, max, choices, off, powersOfTwo, " " + what);
    }

    public boolean accepts(T value) {
        if (value == null) {
            return false;
        }
        if (value.equals(off)) {
            return true;
        }
        if (choices != null) {
            return choices.contains(value);
        }
        return value.compareTo(min) >= 0
                && (max == null || value.compareTo(max) <= 0)
                && (!powersOfTwo || Long.bitCount(((Number) value).longValue()) == 1);
    }

    /** {@code value}, unless it is out of bounds: then a {@link ConfigException} naming {@code setting}. */
    public T check(String setting, T value) {
        ConfigException.require(
                accepts(value), setting, value == null ? null : kind.plain().apply(value), "use " + describe());
        return value;
    }

    /** {@code value} read as the setting's type and checked, naming {@code setting} when it is out of bounds. */
    public T parse(String setting, RawValue value) {
        return check(setting, kind.parse().apply(value));
    }

    /** The bounds as a message writes them: {@code 1 to 1000000}, {@code a power of two from 1 to 1024}. */
    public String describe() {
        return text(kind.plain());
    }

    /** The bounds as the configuration page writes them: {@code 1 to 1,000,000}, {@code `1s` to `365d`}. */
    public String markdown() {
        return text(kind.markdown());
    }

    private String text(Function<T, String> format) {
        String range;
        if (choices != null) {
            List<String> each = choices.stream().map(format).toList();
            range = String.join(", ", each.subList(0, each.size() - 1)) + " or " + each.get(each.size() - 1);
        } else {
            range = max == null ? "at least " + format.apply(min) : format.apply(min) + " to " + format.apply(max);
        }
        if (powersOfTwo) {
            range = "a power of two from " + range;
        }
        if (off != null) {
            range = format.apply(off) + " (off) or " + range;
        }
        return range + unit;
    }

    /** A number to read: {@code 2^29} for a large power of two, digits grouped from six on, else plain. */
    private static String readable(long n) {
        if (n >= 1L << 16 && Long.bitCount(n) == 1) {
            return "2^" + Long.numberOfTrailingZeros(n);
        }
        return n >= 100_000 ? String.format(Locale.ROOT, "%,d", n) : Long.toString(n);
    }

    /** A size as the loader reads it, bytes named when there is no unit: {@code 64 bytes}, {@code 1GiB}. */
    private static String bytes(long n) {
        String size = Sizes.format(n);
        return size.chars().allMatch(Character::isDigit) ? size + " bytes" : size;
    }
}
