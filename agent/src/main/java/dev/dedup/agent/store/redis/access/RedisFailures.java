package dev.dedup.agent.store.redis.access;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Translates what Lettuce and Redis answer into {@link StoreUnavailableException}s that say which shard
 * and why, in one place. Redis error replies start with a code: {@code OOM} (maxmemory reached with
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

    public static StoreUnavailableException translate(String shard, Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof StoreUnavailableException s) {
            return s;
        }
        String message = String.valueOf(t.getMessage());
        if (t instanceof RedisCommandTimeoutException) {
            return new StoreUnavailableException(
                    FailureKind.TIMEOUT, "redis shard " + shard + " did not answer in time", t);
        }
        if (t instanceof RedisCommandExecutionException) {
            return new StoreUnavailableException(
                    ReplyCode.of(message).kind(), "redis shard " + shard + " answered: " + firstLine(message), t);
        }
        if (t instanceof RedisConnectionException
                || t instanceof IOException // a node reset the connection under the call (killed)
                || (t instanceof RedisException && refusedUnconnected(message))) {
            return new StoreUnavailableException(
                    FailureKind.CONNECTION, "redis shard " + shard + " is not connected: " + firstLine(message), t);
        }
        if (t instanceof RedisException && refusedOverLimit(message)) {
            return new StoreUnavailableException(
                    FailureKind.OVERLOADED,
                    "redis shard " + shard + " has too many script calls in flight (redis-max-in-flight)",
                    t);
        }
        return new StoreUnavailableException(FailureKind.ERROR, "redis shard " + shard + " failed: " + t, t);
    }

    /**
     * Whether Lettuce refused or cancelled the command because its connection is closed or not (yet) connected
     * ({@code Connection closed}, {@code Currently not connected. Commands are rejected.}...). Lettuce raises a
     * plain {@link RedisException} for these, so its message is all that tells them apart.
     */
    private static boolean refusedUnconnected(String message) {
        return message.toLowerCase(Locale.ROOT).contains("connect");
    }

    /**
     * Whether Lettuce refused the command because {@code redis-max-in-flight} commands already wait (its request
     * queue or command buffer is full). A plain {@link RedisException} too, told apart by its message.
     */
    private static boolean refusedOverLimit(String message) {
        return message.startsWith("Request queue size exceeded") || message.startsWith("Command buffer size exceeded");
    }

    /** The code a Redis error reply starts with ({@code MOVED}, {@code TRYAGAIN}...), else null. */
    public static ReplyCode code(Throwable failure) {
        return unwrap(failure) instanceof RedisCommandExecutionException e
                ? ReplyCode.of(String.valueOf(e.getMessage()))
                : null;
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

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
