package dev.dedup.loadtest.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class IdSpaceTest {

    private static final Pattern UUID_SHAPE =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    @Test
    void sameRunIdAndSeed_giveTheSameIds() {
        assertEquals(new IdSpace("r1", 7, IdSpace.MEASURED).id(42), new IdSpace("r1", 7, IdSpace.MEASURED).id(42));
    }

    @Test
    void anotherRunIdSeedOrStream_givesOtherIds() {
        String id = new IdSpace("r1", 7, IdSpace.MEASURED).id(42);
        assertNotEquals(id, new IdSpace("r2", 7, IdSpace.MEASURED).id(42));
        assertNotEquals(id, new IdSpace("r1", 8, IdSpace.MEASURED).id(42));
        assertNotEquals(id, new IdSpace("r1", 7, IdSpace.WARMUP).id(42));
    }

    @Test
    void idsAreDistinctAndUuidShaped() {
        IdSpace space = new IdSpace("r", 1, IdSpace.MEASURED);
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            String id = space.id(i);
            assertTrue(seen.add(id), "repeated id at " + i);
            assertTrue(UUID_SHAPE.matcher(id).matches(), id);
        }
    }

    @Test
    void ownersArePartitionAndOffset_andCopiesDiffer() {
        assertEquals("p3:2", Owners.of(Owners.ORIGINAL, 35));
        assertNotEquals(Owners.of(Owners.ORIGINAL, 35), Owners.of(Owners.SECOND_WRITE, 35));
        assertTrue(Owners.of(Owners.SECOND_WRITE, 35).startsWith("p3:"));
    }
}
