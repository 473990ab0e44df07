package dev.dedup.agent.claims;

import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.metrics.AgentMetrics;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.ClaimStore;
import dev.dedup.codec.Batch;
import dev.dedup.wire.BatchRejectedException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Decides claims and releases of decoded batches: finds the namespace's {@link ClaimPolicy}, checks the items
 * against it, asks the store, and counts what it answered, and the late items among those with an event time
 * ({@link dev.dedup.agent.store.EventClocks}): per namespace in {@link #eventTimes()}, in all in {@code
 * dedup_claims_late_total}. The near-cache, when there is one, sits between this service and the store.
 */
public final class ClaimService {

    private final ClaimStore store;
    private final WindowOptions windows;
    private final AgentMetrics metrics;
    /** The policy of every namespace the configuration names. */
    private final Map<String, ClaimPolicy> named;
    /** The policy of every other namespace. */
    private final ClaimPolicy unnamed;
    /** Late items per namespace. */
    private final Map<String, LongAdder> late = new ConcurrentHashMap<>();
    /** Per namespace, what its claims carried so far: 1 event times, 2 none, 3 both. */
    private final Map<String, Integer> carried = new ConcurrentHashMap<>();

    private final NamespaceCap namespaces;

    /** Resolves the policies of {@code windows} once: a request only looks its namespace's up. */
    public ClaimService(ClaimStore store, WindowOptions windows, AgentMetrics metrics) {
        this.store = store;
        this.windows = windows;
        this.metrics = metrics;
        this.named = Map.copyOf(ClaimPolicy.ofNamed(windows));
        this.unnamed = ClaimPolicy.ofUnnamed(windows);
        this.namespaces = new NamespaceCap(windows);
    }

    /** The namespaces requests may name, which the ranges share. */
    public NamespaceCap namespaces() {
        return namespaces;
    }

    /**
     * One verdict code per item: 0 new, 1 retry, 2 duplicate. Fails with the store's failure.
     *
     * @throws BatchRejectedException before anything is claimed, when the namespace files claims by event
     *                                time and an item has none, or is one more than {@code max-namespaces}
     */
    public CompletionStage<byte[]> claim(Batch batch) {
        ClaimPolicy policy = policy(batch.namespace());
        Batch checked = eventTimesChecked(batch, policy);
        namespaces.admit(batch.namespace()); // a batch refused above takes no place
        noteEventTimes(checked, policy);
        return store.claim(checked, policy).thenApply(codes -> {
            metrics.recordClaims(codes);
            return codes;
        });
    }

    /** One byte per item: 1 released, 0 not held by that owner. */
    public CompletionStage<byte[]> release(Batch batch) {
        ClaimPolicy policy = policy(batch.namespace());
        Batch checked = eventTimesChecked(batch, policy);
        namespaces.admit(batch.namespace());
        return store.release(checked, policy).thenApply(results -> {
            metrics.recordReleases(results);
            return results;
        });
    }

    /**
     * One pass over a batch's event times: counts its late items (whose end, a window after their event time, the
     * namespace's clock has passed before the claim, by the clock as the store last saw it, which a Redis tier's
     * other agents may have moved on since; none where the store keeps no clock, as the time buckets), and warns
     * once per namespace whose claims come both with and without event times on a store that keeps the two apart
     * (the Redis tier's fingerprint tables: a copy sent without one does not find a claim made with one).
     */
    private void noteEventTimes(Batch batch, ClaimPolicy policy) {
        int kinds = 2; // 1: some item carries an event time, 2: some carries none
        if (batch.hasEventTimes()) {
            long clock = store.eventClocks().clock(batch.namespace());
            int n = 0;
            kinds = 0;
            for (int i = 0; i < batch.size(); i++) {
                kinds |= batch.eventSecond(i) == Batch.NO_EVENT_TIME ? 2 : 1;
                if (policy.late(batch, i, clock)) {
                    n++;
                }
            }
            if (n > 0) {
                late.computeIfAbsent(batch.namespace(), ns -> new LongAdder()).add(n);
                metrics.recordLate(n);
            }
        }
        if (policy.sliding() || policy.timeBuckets() || !"redis".equals(store.kind())) {
            return;
        }
        int was = carried.getOrDefault(batch.namespace(), 0);
        if ((was | kinds) == was) {
            return;
        }
        int now = carried.merge(batch.namespace(), kinds, (a, b) -> a | b);
        if (now == 3 && was != 3) {
            System.getLogger(ClaimService.class.getName())
                    .log(
                            System.Logger.Level.WARNING,
                            "namespace " + batch.namespace() + " gets claims both with and without event times (ts):"
                                    + " the Redis tier keeps the two apart, so a copy sent without one does not find a"
                                    + " claim made with one. Send ts on every copy of a message, or on none (the"
                                    + " libraries send it only when asked)");
        }
    }

    /**
     * For {@code /v1/stats}: per namespace whose items carry event times, its clock (epoch seconds, as the store
     * last saw it) and its late items so far.
     */
    public Map<String, Object> eventTimes() {
        Map<String, Object> out = new TreeMap<>();
        store.eventClocks().all().forEach((ns, clock) -> {
            LongAdder n = late.get(ns);
            out.put(ns, Map.of("clock", clock, "late", n == null ? 0L : n.sum()));
        });
        return out;
    }

    /**
     * The batch as the store must see it: with every item's event time in a namespace filed in time buckets
     * (else a 400 naming the first item without one), without event times in a sliding namespace, as sent
     * elsewhere.
     */
    private static Batch eventTimesChecked(Batch batch, ClaimPolicy policy) {
        if (policy.sliding()) {
            return batch.withoutEventTimes();
        }
        if (!policy.timeBuckets()) {
            return batch;
        }
        int missing = batch.firstWithoutEventTime();
        if (missing >= 0) {
            throw BatchRejectedException.bad("items[" + missing + "].ts: missing; namespace " + batch.namespace()
                    + " has an event rate (namespace." + batch.namespace()
                    + ".event-rate), so every item needs its message's event time in epoch seconds");
        }
        return batch;
    }

    /** The namespace's policy: its window and, when it files claims by event time, its event rate. */
    public ClaimPolicy policy(String namespace) {
        ClaimPolicy policy = named.get(namespace);
        return policy != null ? policy : unnamed;
    }

    public ClaimStore store() {
        return store;
    }

    public WindowOptions windows() {
        return windows;
    }
}
