package dev.dedup.wire;

/**
 * The media types of the v1 contract, defined once for the client, the agent and the load generator.
 * {@link WireFormat} pairs them into a request's type and the type of its 200 answer.
 */
public final class MediaTypes {

    /** A binary request body: {@code u8 nsLength, ns}, then per item {@code u16 length, id, u16 length, owner}. */
    public static final String BATCH = "application/x-dedup-batch";
    /** The answer to a binary request: one byte per item, in item order. */
    public static final String VERDICTS = "application/x-dedup-verdicts";
    /** A JSON request body, its answer, and every error body. */
    public static final String JSON = "application/json";

    private MediaTypes() {}
}
