package dev.dedup.fingerprint;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.dynatrace.hash4j.hashing.HashValue128;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FingerprintsTest {

    @Test
    void idFingerprint_isDeterministic_andReadsOnlyItsRange() {
        byte[] id = bytes("ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf");
        byte[] padded = bytes("xx" + "ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf" + "yy");

        HashValue128 a = Fingerprints.id(id, 0, id.length);
        assertEquals(a, Fingerprints.id(id.clone(), 0, id.length));
        assertEquals(a, Fingerprints.id(padded, 2, id.length));
        assertEquals(a.getMostSignificantBits(), Fingerprints.key(a));
        assertEquals(a.getLeastSignificantBits(), Fingerprints.route(a));
    }

    @Test
    void ownerFingerprint_isDeterministic() {
        byte[] owner = bytes("3:81418110694");
        assertEquals(Fingerprints.owner(owner, 0, owner.length), Fingerprints.owner(owner.clone(), 0, owner.length));
    }

    @Test
    void saltOfANamespace_isDeterministic_andDiffersBetweenNamespaces() {
        assertEquals(Fingerprints.salt("clicks"), Fingerprints.salt("clicks"));
        assertNotEquals(Fingerprints.salt("clicks"), Fingerprints.salt("views"));
        assertNotEquals(
                Fingerprints.salt("clicks").key(), Fingerprints.salt("views").key());
        assertNotEquals(
                Fingerprints.salt("clicks").route(), Fingerprints.salt("views").route());
    }

    @Test
    void saltedKey_isNeverZero_evenWhenTheKeyEqualsTheSalt() {
        Fingerprints.Salt salt = Fingerprints.salt("clicks");

        assertNotEquals(0L, salt.key(salt.key()));
        assertEquals(1L, salt.key(salt.key()));
        assertNotEquals(0L, new Fingerprints.Salt(0, 0).key(0));
    }

    @Test
    void salting_isAnXorOfBothHalves() {
        Fingerprints.Salt salt = new Fingerprints.Salt(0xff00L, 0x0ff0L);
        assertEquals(0x0f0fL ^ 0xff00L, salt.key(0x0f0fL));
        assertEquals(0x0f0fL ^ 0x0ff0L, salt.route(0x0f0fL));
    }

    @Test
    void differentOwners_getDifferentFingerprints_forASample() {
        Set<Long> seen = new HashSet<>();
        for (int partition = 0; partition < 64; partition++) {
            for (long offset = 0; offset < 1_000; offset++) {
                byte[] owner = bytes(partition + ":" + (81_418_110_000L + offset));
                seen.add(Fingerprints.owner(owner, 0, owner.length));
            }
        }
        assertEquals(64_000, seen.size());
    }

    @Test
    void differentIds_getDifferentKeys_forASample() {
        Set<Long> keys = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            byte[] id = bytes("id-" + i);
            keys.add(Fingerprints.key(Fingerprints.id(id, 0, id.length)));
        }
        assertEquals(100_000, keys.size());
    }

    @Test
    void ownerAndIdHashes_areSeededApart() {
        byte[] b = bytes("same-bytes");
        HashValue128 id = Fingerprints.id(b, 0, b.length);
        long owner = Fingerprints.owner(b, 0, b.length);
        assertNotEquals(id.getMostSignificantBits(), owner);
        assertNotEquals(id.getLeastSignificantBits(), owner);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
