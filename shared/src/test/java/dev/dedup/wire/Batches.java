package dev.dedup.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/** Helpers for comparing decoded batches in tests. */
final class Batches {

    private Batches() {
    }

    /** True when both batches have the same namespace and, item by item, the same fingerprints. */
    static boolean same(Batch a, Batch b) {
        if (!a.namespace().equals(b.namespace()) || a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (a.key(i) != b.key(i) || a.route(i) != b.route(i) || a.owner(i) != b.owner(i)) {
                return false;
            }
        }
        return true;
    }

    static void assertSame(Batch expected, Batch actual) {
        assertEquals(describe(expected), describe(actual));
    }

    /** A readable dump (namespace, then key/route/owner per item) so that a failure shows the difference. */
    static String describe(Batch b) {
        StringBuilder sb = new StringBuilder(b.namespace()).append(" size=").append(b.size());
        for (int i = 0; i < b.size(); i++) {
            sb.append("\n  [").append(i).append("] ").append(Long.toHexString(b.key(i))).append(' ')
                    .append(Long.toHexString(b.route(i))).append(' ').append(Long.toHexString(b.owner(i)));
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

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }
}
