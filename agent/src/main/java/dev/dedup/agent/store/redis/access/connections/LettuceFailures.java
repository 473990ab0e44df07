package dev.dedup.agent.store.redis.access.connections;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.RedisFailures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.util.Locale;

/**
 * Translates what Lettuce raises into {@link StoreUnavailableException}s that say which shard and why, in one
 * place: a timeout, an error reply (by its code, {@link RedisFailures.ReplyCode}), a connection lost or refused, a
 * command refused because too many are in flight.
 */
final class LettuceFailures {

    private LettuceFailures() {}

    static StoreUnavailableException translate(String shard, Throwable failure) {
        Throwable t = RedisFailures.unwrap(failure);
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
                    RedisFailures.ReplyCode.of(message).kind(),
                    "redis shard " + shard + " answered: " + firstLine(message),
                    t);
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
    static RedisFailures.ReplyCode code(Throwable failure) {
        return RedisFailures.unwrap(failure) instanceof RedisCommandExecutionException e
                ? RedisFailures.ReplyCode.of(String.valueOf(e.getMessage()))
                : null;
    }

    /** A failure's first line, for one-line messages (Redis error replies and Lettuce's messages can run on). */
    static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
