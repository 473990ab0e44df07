package dev.dedup.fingerprint;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * Reduces ids and owners to fixed-width fingerprints.
 *
 * <p>An id becomes 128 bits of XXH3: the {@linkplain #key key} half is what a store keeps to tell ids
 * apart (a bucket field, a slot's tag), the {@linkplain #route route} half chooses where it is kept
 * (the Redis bucket and shard, the embedded set). Since the two halves are independent, two different
 * ids that land in the same place are still told apart by all 64 bits of the key: the chance that an
 * unclaimed id is taken for a claimed one is {@code n / 2^64} for a place holding {@code n} ids.
 *
 * <p>Namespaces are mixed in by XOR with a 128-bit salt derived from the namespace, which is a
 * bijection per namespace: it keeps the collision bound above and lets decoders fingerprint items
 * before they have seen the namespace (JSON allows {@code ns} after {@code items}).
 *
 * <p>An owner becomes 64 bits of XXH3. A collision of two owners of the same id turns a
 * {@code duplicate} into a {@code retry} (the copy is processed twice), never a message into a drop.
 */
public final class Fingerprints {

    private static final Hasher128 ID_HASH = Hashing.xxh3_128();
    private static final Hasher64 OWNER_HASH = Hashing.xxh3_64(0x6f776e6572L);
    private static final Hasher128 NAMESPACE_HASH = Hashing.xxh3_128(0x6e616d657370L);

    private Fingerprints() {}

    /** The 128-bit fingerprint of {@code len} id bytes at {@code off}, before any namespace salt. */
    public static HashValue128 id(byte[] bytes, int off, int len) {
        return ID_HASH.hashBytesTo128Bits(bytes, off, len);
    }

    /** The half of an id fingerprint that tells ids apart, before any namespace salt. */
    public static long key(HashValue128 id) {
        return id.getMostSignificantBits();
    }

    /** The half of an id fingerprint that chooses where the id is kept. */
    public static long route(HashValue128 id) {
        return id.getLeastSignificantBits();
    }

    /** The 64-bit fingerprint of {@code len} owner bytes at {@code off}. */
    public static long owner(byte[] bytes, int off, int len) {
        return OWNER_HASH.hashBytesToLong(bytes, off, len);
    }

    /** The salt XORed into the id fingerprints of a namespace. */
    public static Salt salt(String namespace) {
        byte[] bytes = namespace.getBytes(StandardCharsets.UTF_8);
        HashValue128 h = NAMESPACE_HASH.hashBytesTo128Bits(bytes, 0, bytes.length);
        return new Salt(h.getMostSignificantBits(), h.getLeastSignificantBits());
    }

    /** A namespace's salt: XORed into the key and the route half of each id fingerprint. */
    public record Salt(long key, long route) {

        /** Salts a key; the result is never 0, so that 0 can mark an empty slot. */
        public long key(long unsaltedKey) {
            long k = unsaltedKey ^ key;
            return k == 0 ? 1 : k;
        }

        public long route(long unsaltedRoute) {
            return unsaltedRoute ^ route;
        }
    }
}
