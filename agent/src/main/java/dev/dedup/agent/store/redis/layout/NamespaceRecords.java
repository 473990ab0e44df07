package dev.dedup.agent.store.redis.layout;

import dev.dedup.agent.config.value.Durations;
import dev.dedup.agent.store.ClaimPolicy;
import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.topology.RecordCall;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shards' record of where each namespace keeps its claims, so that an agent configured otherwise cannot
 * look elsewhere and answer copies of claimed ids {@code new}.
 *
 * <p>Two settings decide where a claim is: the window and its mode choose a fingerprint table (one per window
 * and mode, {@link FingerprintTable#nameOf}), or the event rate files it by event time, split into
 * {@link TimeBuckets#slices} buckets a second. The first agent to use a namespace stamps both on every shard
 * ({@code <prefix>:layout:<ns>}, and {@code <prefix>:slices:<ns>} by event time); an agent whose settings put
 * the namespace elsewhere refuses to start (a namespace named in its configuration) or answers 503 for it (one
 * it meets first in a request, through {@code *}), saying what the deployment was started with. An event rate
 * only sizes the buckets, so a namespace busier than its rate forgets nothing: keeping the first rate is always
 * safe.
 */
public final class NamespaceRecords {

    private static final System.Logger LOG = System.getLogger(NamespaceRecords.class.getName());
    private static final String LAYOUT = "dedup-namespace v1 ";
    private static final String SLICES = "dedup-slices v1 slices=";
    private final RedisPort port;
    private final String keyPrefix;
    private final Map<String, CompletableFuture<Void>> agreed = new ConcurrentHashMap<>();

    public NamespaceRecords(RedisPort port, String keyPrefix) {
        this.port = port;
        this.keyPrefix = keyPrefix;
    }

    /**
     * Checks, or stamps, the namespaces named in the configuration before the agent serves.
     *
     * @throws IncompatibleDeploymentException when a shard records another place for one of them (the agent exits 2)
     */
    public void agreeOrRefuse(Map<String, ClaimPolicy> named) {
        named.forEach((ns, policy) -> {
            try {
                agree(ns, policy).toCompletableFuture().join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof StoreUnavailableException s
                        && (s.kind() == FailureKind.WINDOW || s.kind() == FailureKind.EVENT_RATE)) {
                    throw new IncompatibleDeploymentException(s.getMessage());
                }
                throw e;
            }
        });
    }

    /** Completes once every shard records the place this agent keeps {@code namespace}'s claims in. */
    public CompletionStage<Void> agree(String namespace, ClaimPolicy policy) {
        CompletableFuture<Void> done = agreed.get(namespace);
        if (done != null && !done.isCompletedExceptionally()) {
            return done;
        }
        String layout = layoutOf(policy);
        CompletableFuture<Void> mine = check(namespace, "layout", LAYOUT + layout, held -> {
            String was = held.startsWith(LAYOUT) ? describe(held.substring(LAYOUT.length())) : held;
            return new StoreUnavailableException(
                    FailureKind.WINDOW,
                    "namespace " + namespace + " keeps its claims in " + was + " on redis shard %s, but this"
                            + " agent's settings would keep them in " + describe(layout) + " and answer copies of"
                            + " ids already claimed new. Start it with the namespace's window, window mode and"
                            + " event rate as the deployment has them; to change them, accepting that copies of"
                            + " ids claimed within the old window may each pass once, stop every agent, delete "
                            + keyPrefix + ":layout:" + namespace + " from every shard and start them with the new"
                            + " settings",
                    null);
        });
        if (policy.timeBuckets()) {
            int slices = TimeBuckets.slices(policy.eventRate());
            mine = mine.thenCompose(v -> check(namespace, "slices", SLICES + slices, held -> {
                String was = held.startsWith(SLICES) ? held.substring(SLICES.length()) : held;
                return new StoreUnavailableException(
                        FailureKind.EVENT_RATE,
                        "namespace " + namespace + " is filed by event time in " + was + " buckets a second on"
                                + " redis shard %s (an event rate of up to " + rateFor(was) + "), but this agent's"
                                + " event rate " + policy.eventRate() + " makes " + slices + ": changing it would"
                                + " forget the claims of every second already seen. Keep the rate the deployment"
                                + " was started with (a busier namespace only has longer buckets, counted in"
                                + " dedup_redis_overfull_total)",
                        null);
            }));
        }
        agreed.put(namespace, mine);
        return mine;
    }

    /** Where a policy keeps claims: its fingerprint table's name, or {@code time}. */
    static String layoutOf(ClaimPolicy policy) {
        return policy.timeBuckets() ? "time" : FingerprintTable.nameOf(policy);
    }

    /** {@code f86400000} as "the fingerprint table of a fixed 24h window"; {@code time} as "buckets by event time". */
    static String describe(String layout) {
        if (layout.equals("time")) {
            return "buckets by event time";
        }
        try {
            long millis = Long.parseLong(layout.substring(1));
            String mode = layout.charAt(0) == 's' ? "sliding" : "fixed";
            return "the fingerprint table of a " + mode + " " + Durations.format(Duration.ofMillis(millis)) + " window";
        } catch (RuntimeException e) {
            return layout;
        }
    }

    /**
     * Stamps {@code record} on every shard that has none under {@code <prefix>:<what>:<namespace>}; fails with
     * {@code refusal} (its {@code %s} the shard's name) where a shard holds another.
     */
    private CompletableFuture<Void> check(
            String namespace,
            String what,
            String record,
            java.util.function.Function<String, StoreUnavailableException> refusal) {
        byte[] key = (keyPrefix + ":" + what + ":" + namespace).getBytes(StandardCharsets.US_ASCII);
        byte[] mine = record.getBytes(StandardCharsets.US_ASCII);
        List<CompletableFuture<Void>> shards = new ArrayList<>();
        for (int s = 0; s < port.shards(); s++) {
            int shard = s;
            shards.add(RecordCall.stamp(port, shard, key, mine)
                    .<Void>thenApply(held -> {
                        if (!record.equals(held)) {
                            StoreUnavailableException e = refusal.apply(held);
                            String message = e.getMessage().replace("%s", port.name(shard));
                            LOG.log(Level.ERROR, message);
                            throw new StoreUnavailableException(e.kind(), message, null);
                        }
                        return null;
                    })
                    .toCompletableFuture());
        }
        return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new));
    }

    private static String rateFor(String slices) {
        try {
            return String.valueOf((long) Integer.parseInt(slices) * TimeBuckets.TARGET_FILL);
        } catch (NumberFormatException e) {
            return "?";
        }
    }
}
