package dev.dedup.agent.store.redis;

import dev.dedup.agent.config.ConfigException;
import dev.dedup.agent.store.StoreUnavailableException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The shards' record of how many buckets a second each event-time namespace is split into, so that a changed
 * {@code --namespace-event-rate} cannot forget claims.
 *
 * <p>An id's bucket within its second is its route modulo the namespace's slices ({@link TimeBuckets#slices},
 * from the event rate): an agent with another rate would look for every id of a second already claimed in
 * another bucket, and answer its copies {@code new}. So every shard holds {@code <prefix>:slices:<ns>} =
 * {@code dedup-slices v1 slices=<n>}, stamped by the first agent to use the namespace; an agent whose rate
 * gives another count refuses to start (a namespace named in its configuration) or answers 503 for the
 * namespace (one it meets first in a request, through {@code *}), saying which rate the deployment was started
 * with. The rate only sizes the buckets: a namespace busier than its rate has longer buckets (counted in
 * {@code dedup_redis_overfull_total}) and forgets nothing, so keeping the first rate is always safe.
 */
final class TimeSlicing {

    private static final System.Logger LOG = System.getLogger(TimeSlicing.class.getName());
    private static final String PREFIX = "dedup-slices v1 slices=";

    private final RedisPort port;
    private final String keyPrefix;
    private final Map<String, CompletableFuture<Void>> agreed = new ConcurrentHashMap<>();

    TimeSlicing(RedisPort port, String keyPrefix) {
        this.port = port;
        this.keyPrefix = keyPrefix;
    }

    /**
     * Checks, or stamps, the namespaces named in the configuration before the agent serves.
     *
     * @throws ConfigException when a shard records another count for one of them (the agent exits 2)
     */
    void agreeOrRefuse(Map<String, Integer> namedRates) {
        namedRates.forEach((ns, rate) -> {
            try {
                agree(ns, rate).toCompletableFuture().join();
            } catch (java.util.concurrent.CompletionException e) {
                if (e.getCause() instanceof StoreUnavailableException s
                        && s.kind().equals("event_rate")) {
                    throw new ConfigException(s.getMessage());
                }
                throw e;
            }
        });
    }

    /** Completes once every shard records the slices this agent files {@code namespace} with. */
    CompletionStage<Void> agree(String namespace, int eventRate) {
        CompletableFuture<Void> done = agreed.get(namespace);
        if (done != null && !done.isCompletedExceptionally()) {
            return done;
        }
        CompletableFuture<Void> mine = check(namespace, TimeBuckets.slices(eventRate), eventRate);
        agreed.put(namespace, mine);
        return mine;
    }

    private CompletableFuture<Void> check(String namespace, int slices, int eventRate) {
        byte[] key = (keyPrefix + ":slices:" + namespace).getBytes(StandardCharsets.US_ASCII);
        byte[] record = (PREFIX + slices).getBytes(StandardCharsets.US_ASCII);
        List<CompletableFuture<Void>> shards = new ArrayList<>();
        for (int s = 0; s < port.shards(); s++) {
            int shard = s;
            shards.add(port.eval(shard, RedisScript.TOPOLOGY, Mode.TOPOLOGY, new byte[][] {key}, new byte[][] {record})
                    .<Void>thenApply(reply -> {
                        String held = new String((byte[]) reply.get(0), StandardCharsets.US_ASCII);
                        if (!held.equals(PREFIX + slices)) {
                            String was = held.startsWith(PREFIX) ? held.substring(PREFIX.length()) : held;
                            String message = "namespace " + namespace + " is filed by event time in " + was
                                    + " buckets a second on redis shard " + port.name(shard) + " (an event rate of"
                                    + " up to " + rateFor(was) + "), but this agent's event rate " + eventRate
                                    + " makes " + slices + ": changing it would forget the claims of every second"
                                    + " already seen. Keep the rate the deployment was started with (a busier"
                                    + " namespace only has longer buckets, counted in dedup_redis_overfull_total)";
                            LOG.log(Level.ERROR, message);
                            throw new StoreUnavailableException("event_rate", message, null);
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
