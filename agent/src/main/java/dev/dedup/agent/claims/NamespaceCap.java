package dev.dedup.agent.claims;

import dev.dedup.agent.config.WindowOptions;
import dev.dedup.wire.BatchRejectedException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The namespaces requests may name: every one the namespace settings name, and up to {@code max-namespaces} more,
 * taken in the order requests first name them and kept until the agent stops (each keeps state that long: an event
 * clock; on Redis a table per shard, swept, with its meters). A request that names one more is refused before
 * anything is claimed, released or committed.
 */
public final class NamespaceCap {

    private final Set<String> named;
    private final int max;
    private final Set<String> served = ConcurrentHashMap.newKeySet();

    public NamespaceCap(WindowOptions windows) {
        this.named = Set.copyOf(windows.named());
        this.max = windows.maxNamespaces();
    }

    /**
     * Takes {@code namespace} in, or refuses it.
     *
     * @throws BatchRejectedException (a 400) when it would be one more than {@code max-namespaces}
     */
    public void admit(String namespace) {
        if (served.contains(namespace) || named.contains(namespace)) {
            return;
        }
        synchronized (served) {
            if (served.size() >= max && !served.contains(namespace)) {
                throw BatchRejectedException.bad("namespace: " + namespace + " would be one more than the "
                        + max + " this agent serves besides the configured ones (max-namespaces); a namespace is a"
                        + " stream of messages, not a run or a day: reuse one (name runs in the ids), name it in the"
                        + " namespace settings, or raise --max-namespaces");
            }
            served.add(namespace);
        }
    }

    /** For {@code /v1/stats}: the namespaces in use besides the configured ones, and how many may be. */
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("in_use", served.size());
        d.put("max", max);
        d.put("configured", named.size());
        return d;
    }
}
