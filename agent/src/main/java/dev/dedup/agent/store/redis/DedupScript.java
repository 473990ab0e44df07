package dev.dedup.agent.store.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * A claim and release script ({@code dedup.lua} or {@code timed.lua} beside this class), called by its SHA. When a shard
 * answers {@code NOSCRIPT} (restarted, failed over, {@code SCRIPT FLUSH}), the script is loaded on that
 * shard and the call made once more.
 */
final class DedupScript {

    private final byte[] body;
    private final String sha;

    /** {@code dedup.lua}: the fingerprint layout's claims, releases and sweeps. */
    DedupScript() {
        this("dedup.lua");
    }

    /** A script beside this class, e.g. {@code timed.lua} for claims filed by event time. */
    DedupScript(String resource) {
        try (InputStream in = DedupScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the agent's classpath");
            }
            body = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        sha = sha1Hex(body);
    }

    String sha() {
        return sha;
    }

    /** Calls the script; returns {@code [answers, evictions]}. */
    CompletionStage<List<Object>> call(RedisAsyncCommands<byte[], byte[]> redis, byte[][] keys, byte[][] args) {
        CompletableFuture<List<Object>> first = redis.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, args)
                .toCompletableFuture();
        return first.handle((result, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(result);
            }
            Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            if (cause instanceof RedisNoScriptException) {
                return redis.scriptLoad(body).toCompletableFuture().thenCompose(loaded ->
                        redis.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, args).toCompletableFuture());
            }
            return CompletableFuture.<List<Object>>failedFuture(cause);
        }).thenCompose(stage -> stage);
    }

    /** Loads the script, e.g. at start, so that the first batch does not pay for it. */
    CompletionStage<String> load(RedisAsyncCommands<byte[], byte[]> redis) {
        return redis.scriptLoad(body);
    }

    private static String sha1Hex(byte[] bytes) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-1").digest(bytes);
            StringBuilder sb = new StringBuilder(40);
            for (byte b : digest) {
                sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return sb.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
