package dev.dedup.agent.store;

import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The port for ordered streams (the KCL + S3 design of "Avoiding duplicate records with AWS KCL and S3"):
 * committed ranges of sequence numbers per (namespace, stream), merged when they overlap or touch, each
 * remembered for the namespace's window after its last commit.
 *
 * <p>Not behind the near-cache: a range store must never say "done" for a range nobody committed (the
 * worker would skip records: loss), and a cache could only say "done" for what this agent saw committed
 * while other agents commit too, so every check asks the store. Checks and commits cost one call per
 * request, not per record.
 */
public interface RangeStore {

    /**
     * Per asked range, in request order, the maximal sub-ranges already committed and not ended (an empty
     * list when none is).
     */
    CompletionStage<List<List<SequenceRange>>> checkRanges(RangeRequest request, ClaimPolicy policy);

    /**
     * Commits every range of the request, in order, atomically with respect to other commits of the
     * stream; each merged range ends a window from now. Idempotent.
     */
    CompletionStage<Void> commitRanges(RangeRequest request, ClaimPolicy policy);
}
