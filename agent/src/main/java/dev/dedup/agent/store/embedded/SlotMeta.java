package dev.dedup.agent.store.embedded;

/**
 * The second half of a slot: who holds the claim and until when, in one {@code long} so that a slot is
 * two plain 8-byte words.
 *
 * <p>The high 32 bits are the owner's tag, the low 32 bits of its fingerprint: a claim only has to tell
 * the owners of one id apart, and two owners of the same id sharing a tag (about 1 in 4 billion) turn a
 * {@code duplicate} into a {@code retry}, never a message into a drop. The low 32 bits are the expiry,
 * unsigned whole seconds after the file's base second, which lasts 136 years. A slot whose key is 0 is
 * empty, whatever its meta.
 */
final class SlotMeta {

    /** Largest expiry a slot can hold. */
    static final long MAX_EXPIRY = 0xffff_ffffL;

    private SlotMeta() {}

    static long of(long ownerFingerprint, long expiry) {
        return ((long) ownerTag(ownerFingerprint) << 32) | (expiry & MAX_EXPIRY);
    }

    /** The same claim, ending at {@code expiry} instead. */
    static long withExpiry(long meta, long expiry) {
        return (meta & ~MAX_EXPIRY) | (expiry & MAX_EXPIRY);
    }

    static int ownerTag(long ownerFingerprint) {
        return (int) ownerFingerprint;
    }

    static int ownerTagOf(long meta) {
        return (int) (meta >>> 32);
    }

    static long expiryOf(long meta) {
        return meta & MAX_EXPIRY;
    }

    /**
     * The expiry of a claim that ends at epoch second {@code endSecond}, relative to the base. Clamped to
     * {@code [1, MAX_EXPIRY]}: a clock before the base must not make a claim that is already expired.
     */
    static long expiryAt(long baseEpochSeconds, long endSecond) {
        return Math.max(1, Math.min(MAX_EXPIRY, endSecond - baseEpochSeconds));
    }

    /** Whole seconds from the base to {@code nowMillis}, floored; negative if the clock is before the base. */
    static long nowSeconds(long baseEpochSeconds, long nowMillis) {
        return Math.floorDiv(nowMillis, 1000L) - baseEpochSeconds;
    }

    static boolean expired(long meta, long nowSeconds) {
        return nowSeconds >= expiryOf(meta);
    }
}
