package dev.dedup.wire;

import java.util.List;
import java.util.Locale;

/**
 * The two formats of {@code POST /v1/claims} and {@code POST /v1/releases}: a request body's media type,
 * the media type of its 200 answer, and the encoder that writes such a body.
 */
public enum WireFormat {
    /** {@value MediaTypes#BATCH}, answered with {@value MediaTypes#VERDICTS}: what high-rate workers send. */
    BINARY("binary", MediaTypes.BATCH, MediaTypes.VERDICTS),
    /** {@value MediaTypes#JSON} both ways: what curl and scripts send. */
    JSON("json", MediaTypes.JSON, MediaTypes.JSON);

    private final String label;
    private final String requestType;
    private final String responseType;

    WireFormat(String label, String requestType, String responseType) {
        this.label = label;
        this.requestType = requestType;
        this.responseType = responseType;
    }

    /** {@code binary} or {@code json}: how metrics, command lines and reports name the format. */
    public String label() {
        return label;
    }

    /** The request's {@code Content-Type}. */
    public String requestType() {
        return requestType;
    }

    /** The {@code Content-Type} of a 200 answer. */
    public String responseType() {
        return responseType;
    }

    /** A request body of {@code items} in namespace {@code namespace} (with event times when they carry them). */
    public byte[] encode(String namespace, List<Item> items) {
        return this == BINARY ? BatchEncoder.binary(namespace, items) : BatchEncoder.json(namespace, items);
    }

    /**
     * The format a request's {@code Content-Type} names, its parameters and case ignored
     * ({@code application/json; charset=utf-8} is JSON); null when it names neither or is null.
     */
    public static WireFormat ofContentType(String contentType) {
        if (contentType == null) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        String media = (semicolon < 0 ? contentType : contentType.substring(0, semicolon))
                .trim()
                .toLowerCase(Locale.ROOT);
        if (media.equals(MediaTypes.BATCH)) {
            return BINARY;
        }
        return media.equals(MediaTypes.JSON) ? JSON : null;
    }
}
