package dev.dedup.agent.ranges;

import dev.dedup.agent.claims.NamespaceCap;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.RangeStore;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Checks and commits ranges of ordered streams: a committed range is remembered for its namespace's
 * window after its last commit.
 */
public final class RangeService {

    private final RangeStore store;
    private final WindowOptions windows;
    private final AgentMetrics metrics;
    private final NamespaceCap namespaces;

    /** @param namespaces the namespaces requests may name, shared with the claims */
    public RangeService(RangeStore store, WindowOptions windows, AgentMetrics metrics, NamespaceCap namespaces) {
        this.namespaces = namespaces;
        this.store = store;
        this.windows = windows;
        this.metrics = metrics;
    }

    /** Per asked range, in order, its maximal parts already committed. */
    public CompletionStage<List<List<SequenceRange>>> check(RangeRequest request) {
        namespaces.admit(request.namespace());
        return store.checkRanges(request, policy(request)).thenApply(done -> {
            int none = 0;
            int all = 0;
            for (int k = 0; k < done.size(); k++) {
                List<SequenceRange> parts = done.get(k);
                if (parts.isEmpty()) {
                    none++;
                } else if (parts.size() == 1
                        && parts.get(0).equals(request.ranges().get(k))) {
                    all++;
                }
            }
            metrics.recordRangesChecked("none", none);
            metrics.recordRangesChecked("all", all);
            metrics.recordRangesChecked("partial", done.size() - none - all);
            return done;
        });
    }

    /** Commits every range; completes when the store holds them. */
    public CompletionStage<Void> commit(RangeRequest request) {
        namespaces.admit(request.namespace());
        return store.commitRanges(request, policy(request)).thenApply(ignored -> {
            metrics.recordRangesCommitted(request.ranges().size());
            return null;
        });
    }

    private ClaimPolicy policy(RangeRequest request) {
        return ClaimPolicy.window(windows.windowMillis(request.namespace()));
    }
}
