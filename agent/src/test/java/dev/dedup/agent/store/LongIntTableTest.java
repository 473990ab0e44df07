package dev.dedup.agent.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class LongIntTableTest {

    @Test
    void aKeyKeepsItsFirstValue() {
        LongIntTable table = new LongIntTable(4);
        assertEquals(LongIntTable.ABSENT, table.putIfAbsent(42, 7));
        assertEquals(7, table.putIfAbsent(42, 9));
        assertEquals(7, table.get(42));
        assertEquals(LongIntTable.ABSENT, table.get(43));
    }

    @Test
    void zeroIsAKeyAndAValueLikeAnyOther() {
        LongIntTable table = new LongIntTable(2);
        assertEquals(LongIntTable.ABSENT, table.get(0));
        assertEquals(LongIntTable.ABSENT, table.putIfAbsent(0, 0));
        assertEquals(0, table.get(0));
        assertEquals(LongIntTable.ABSENT, table.putIfAbsent(-1L, 1));
        assertEquals(1, table.get(-1L));
    }

    @Test
    void keysThatCollideAreEachFound() {
        // keys differing only in their low bits land in the same slot (the slot comes from the product's high bits)
        int n = 64;
        LongIntTable table = new LongIntTable(n);
        for (int i = 0; i < n; i++) {
            assertEquals(LongIntTable.ABSENT, table.putIfAbsent((long) i << 40, i));
        }
        for (int i = 0; i < n; i++) {
            assertEquals(i, table.get((long) i << 40));
        }
        assertEquals(LongIntTable.ABSENT, table.get(1L << 60));
    }

    @Test
    void agreesWithAHashMapOnRandomKeys() {
        SplittableRandom random = new SplittableRandom(7);
        int n = 1000;
        LongIntTable table = new LongIntTable(n);
        Map<Long, Integer> expected = new HashMap<>();
        for (int i = 0; i < n; i++) {
            long key = random.nextLong(300); // repeats, as a batch's keys may
            Integer had = expected.putIfAbsent(key, i);
            assertEquals(had == null ? LongIntTable.ABSENT : had, table.putIfAbsent(key, i));
        }
        for (long key = -5; key < 305; key++) {
            assertEquals(expected.getOrDefault(key, LongIntTable.ABSENT), table.get(key), "key " + key);
        }
    }

    @Test
    void moreKeysThanItWasSizedForAreRefused() {
        LongIntTable table = new LongIntTable(3); // room for 4
        for (int i = 0; i < 4; i++) {
            table.putIfAbsent(i, i);
        }
        assertEquals(2, table.putIfAbsent(2, 5), "a key held already is still answered");
        assertThrows(IllegalStateException.class, () -> table.putIfAbsent(4, 4));
        assertThrows(IllegalArgumentException.class, () -> new LongIntTable(1).putIfAbsent(1, -1));
    }
}
