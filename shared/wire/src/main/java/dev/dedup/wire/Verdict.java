package dev.dedup.wire;

/** The answer for one claimed item; {@link #code()} is its byte in {@code application/x-dedup-verdicts}. */
public enum Verdict {
    /** Nobody claimed the id in the window; it is now claimed by this owner: process it. */
    NEW(0, "new"),
    /** The id is claimed by this same owner (a retried task): process it again. */
    RETRY(1, "retry"),
    /** The id is claimed by another owner (another copy of the message): skip it. */
    DUPLICATE(2, "duplicate");

    private static final Verdict[] BY_CODE = values();

    private final byte code;
    private final String wireName;

    Verdict(int code, String wireName) {
        this.code = (byte) code;
        this.wireName = wireName;
    }

    public byte code() {
        return code;
    }

    /** The lowercase name used in JSON responses and metric tags. */
    public String wireName() {
        return wireName;
    }

    public static Verdict ofCode(byte code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new IllegalArgumentException("no verdict has code " + code);
        }
        return BY_CODE[code];
    }
}
