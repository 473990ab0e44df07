package dev.dedup.agent.store.redis.access;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
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

    public static StoreUnavailableException translate(String shard, Throwable failure) {
        Throwable t = unwrap(failure);
        if (t instanceof StoreUnavailableException s) {
            return s;
        }
        if (t instanceof RedisCommandTimeoutException) {
            return new StoreUnavailableException(
                    FailureKind.TIMEOUT, "redis shard " + shard + " did not answer in time", t);
        }
        if (t instanceof RedisCommandExecutionException) {
            String message = String.valueOf(t.getMessage());
            String code = code(t);
            FailureKind kind = switch (code) {
                case "OOM" -> FailureKind.OOM;
                case "READONLY" -> FailureKind.READONLY;
                case "LOADING" -> FailureKind.LOADING;
                case "BUSY" -> FailureKind.BUSY;
                case "DEDUPTOPOLOGY" -> FailureKind.TOPOLOGY;
                case "NOAUTH", "WRONGPASS", "NOPERM" -> FailureKind.AUTH;
                case "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK" -> FailureKind.CLUSTER;
                default -> FailureKind.ERROR;
            };
            return new StoreUnavailableException(kind, "redis shard " + shard + " answered: " + firstLine(message), t);
        }
        if (t instanceof RedisConnectionException
                || t instanceof java.io.IOException // a node reset the connection under the call (killed)
                || (t instanceof RedisException
                        && String.valueOf(t.getMessage())
                                .toLowerCase(java.util.Locale.ROOT)
                                .contains("connect"))) {
            return new StoreUnavailableException(
                    FailureKind.CONNECTION,
                    "redis shard " + shard + " is not connected: " + firstLine(String.valueOf(t.getMessage())),
                    t);
        }
        if (t instanceof RedisException && String.valueOf(t.getMessage()).contains("Request queue size exceeded")) {
            return new StoreUnavailableException(
                    FailureKind.OVERLOADED,
                    "redis shard " + shard + " has too many script calls in flight (redis-max-in-flight)",
                    t);
        }
        return new StoreUnavailableException(FailureKind.ERROR, "redis shard " + shard + " failed: " + t, t);
    }

    /** The code a Redis error reply starts with ({@code MOVED}, {@code TRYAGAIN}...), else null. */
    public static String code(Throwable failure) {
        if (!(unwrap(failure) instanceof RedisCommandExecutionException e)) {
            return null;
        }
        String message = String.valueOf(e.getMessage());
        int space = message.indexOf(' ');
        return space < 0 ? message : message.substring(0, space);
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
