package dev.dedup.agent.store.redis.access;

import dev.dedup.agent.store.FailureKind;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * What Redis answers when it fails a call, apart from the client that carried it (the connections' {@code
 * LettuceFailures} turns Lettuce's exceptions into {@link dev.dedup.agent.store.StoreUnavailableException}s with
 * these). Redis error replies start with a code: {@code OOM} (maxmemory reached with
 * noeviction), {@code READONLY} (a replica, e.g. after a failover not yet followed), {@code LOADING}
 * (restarting), {@code BUSY} (another script runs too long), {@code NOSCRIPT} (handled by
 * {@code LettuceRedis} before it gets here). On a Redis Cluster, {@code CLUSTERDOWN} (slots without a master,
 * e.g. before a replica is promoted), {@code TRYAGAIN} (a slot being migrated, after {@code LettuceRedis}'s
 * retries) and a {@code MOVED} or {@code ASK} left after the client's
 * redirections are the cluster changing under the call: {@code cluster}.
 */
public final class RedisFailures {

    private RedisFailures() {}

    /** The codes Redis error replies start with that the store tells apart, each with the failure it means. */
    public enum ReplyCode {
        OOM(FailureKind.OOM),
        READONLY(FailureKind.READONLY),
        LOADING(FailureKind.LOADING),
        BUSY(FailureKind.BUSY),
        /** Raised by {@code guard.lua}: the shard's topology record is missing or not the expected one. */
        DEDUPTOPOLOGY(FailureKind.TOPOLOGY),
        NOAUTH(FailureKind.AUTH),
        WRONGPASS(FailureKind.AUTH),
        NOPERM(FailureKind.AUTH),
        CLUSTERDOWN(FailureKind.CLUSTER),
        TRYAGAIN(FailureKind.CLUSTER),
        MOVED(FailureKind.CLUSTER),
        ASK(FailureKind.CLUSTER),
        /** Any other code. */
        OTHER(FailureKind.ERROR);

        private static final Map<String, ReplyCode> BY_NAME = new HashMap<>();

        static {
            for (ReplyCode code : values()) {
                if (code != OTHER) {
                    BY_NAME.put(code.name(), code);
                }
            }
        }

        private final FailureKind kind;

        ReplyCode(FailureKind kind) {
            this.kind = kind;
        }

        /** What a reply with this code makes of the call. */
        public FailureKind kind() {
            return kind;
        }

        /** The code {@code reply} (an error reply's text) starts with. */
        public static ReplyCode of(String reply) {
            int space = reply.indexOf(' ');
            return BY_NAME.getOrDefault(space < 0 ? reply : reply.substring(0, space), OTHER);
        }
    }

    /** The failure inside any {@link CompletionException}s. */
    public static Throwable unwrap(Throwable failure) {
        Throwable t = failure;
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    /**
     * Waits for an asynchronous command and returns its reply, throwing what the synchronous API would: the
     * command's own exception rather than a {@link java.util.concurrent.CompletionException} around it. The
     * connections time commands out themselves ({@code TimeoutOptions}), so this never waits longer than that.
     */
    public static <T> T await(CompletionStage<T> command) {
        try {
            return command.toCompletableFuture().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw e;
        }
    }

    /** The failure's message, and its root cause's when it has one: for one-line start errors. */
    public static String rootMessage(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root == t ? String.valueOf(t.getMessage()) : t.getMessage() + " (" + root.getMessage() + ")";
    }
}
