package dev.dedup.codec;

import dev.dedup.wire.SequenceRange;
import java.util.List;

/**
 * A decoded {@code POST /v1/ranges/check} or {@code /v1/ranges/commit} body: a namespace, a stream and
 * its ranges, in request order, each already checked.
 */
public record RangeRequest(String namespace, String stream, List<SequenceRange> ranges) {

    public RangeRequest {
        ranges = List.copyOf(ranges);
    }
}
