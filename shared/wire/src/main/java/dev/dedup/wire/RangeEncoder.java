package dev.dedup.wire;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Writes the body of {@code POST /v1/ranges/check} and {@code /v1/ranges/commit}, and their answers. */
public final class RangeEncoder {

    private RangeEncoder() {}

    /** {@code {"ns": ..., "stream": ..., "ranges": [{"from": "...", "to": "..."}, ...]}}, checked first. */
    public static byte[] request(String namespace, String stream, List<SequenceRange> ranges) {
        Limits.requireNamespace(namespace);
        Limits.requireStream(stream);
        StringBuilder sb = new StringBuilder(64 + ranges.size() * 48);
        sb.append("{\"ns\":");
        BatchEncoder.quote(sb, namespace);
        sb.append(",\"stream\":");
        BatchEncoder.quote(sb, stream);
        sb.append(",\"ranges\":");
        appendRanges(sb, ranges);
        return sb.append('}').toString().getBytes(StandardCharsets.UTF_8);
    }

    /** {@code {"done": [[{"from": ..., "to": ...}, ...], ...]}}: per asked range, its committed parts. */
    public static byte[] done(List<List<SequenceRange>> done) {
        StringBuilder sb = new StringBuilder(16 + done.size() * 48);
        sb.append("{\"done\":[");
        for (int k = 0; k < done.size(); k++) {
            if (k > 0) {
                sb.append(',');
            }
            appendRanges(sb, done.get(k));
        }
        return sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    /** {@code {"committed": [true, ...]}}: one per committed range. */
    public static byte[] committed(int ranges) {
        StringBuilder sb = new StringBuilder(16 + ranges * 5);
        sb.append("{\"committed\":[");
        for (int k = 0; k < ranges; k++) {
            sb.append(k > 0 ? ",true" : "true");
        }
        return sb.append("]}").toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void appendRanges(StringBuilder sb, List<SequenceRange> ranges) {
        sb.append('[');
        for (int i = 0; i < ranges.size(); i++) {
            SequenceRange r = ranges.get(i);
            sb.append(i > 0 ? ",{\"from\":\"" : "{\"from\":\"")
                    .append(r.from())
                    .append("\",\"to\":\"")
                    .append(r.to())
                    .append("\"}");
        }
        sb.append(']');
    }
}
