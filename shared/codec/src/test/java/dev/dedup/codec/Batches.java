package dev.dedup.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.wire.Item;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** Helpers for comparing decoded batches in tests. */
final class Batches {

    private Batches() {}

    /**
     * True when both batches have the same namespace and, item by item, the same fingerprints and event
     * seconds.
     */
    static boolean same(Batch a, Batch b) {
        if (!a.namespace().equals(b.namespace()) || a.size() != b.size() || a.hasEventTimes() != b.hasEventTimes()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.key(i) != b.key(i)
                    || a.route(i) != b.route(i)
                    || a.owner(i) != b.owner(i)
                    || a.eventSecond(i) != b.eventSecond(i)) {
                return false;
            }
        }
        return true;
    }

    static void assertSame(Batch expected, Batch actual) {
        assertEquals(describe(expected), describe(actual));
    }

    /**
     * A readable dump (namespace, then key/route/owner and event second per item) so that a failure shows
     * the difference.
     */
    static String describe(Batch b) {
        StringBuilder sb = new StringBuilder(b.namespace()).append(" size=").append(b.size());
        if (b.hasEventTimes()) {
            sb.append(" with event times");
        }
        for (int i = 0; i < b.size(); i++) {
            sb.append("\n  [")
                    .append(i)
                    .append("] ")
                    .append(Long.toHexString(b.key(i)))
                    .append(' ')
                    .append(Long.toHexString(b.route(i)))
                    .append(' ')
                    .append(Long.toHexString(b.owner(i)));
            if (b.eventSecond(i) != Batch.NO_EVENT_TIME) {
                sb.append(" ts=").append(b.eventSecond(i));
            }
        }
        return sb.toString();
    }

    static List<Item> items(String owner, String... ids) {
        List<Item> items = new ArrayList<>();
        for (String id : ids) {
            items.add(new Item(id, owner));
        }
        return items;
    }

    /** Copies of {@code items}, each with the event second at its position in {@code seconds}. */
    static List<Item> timed(List<Item> items, long... seconds) {
        List<Item> out = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            out.add(new Item(items.get(i).id(), items.get(i).owner(), seconds[i]));
        }
        return out;
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
