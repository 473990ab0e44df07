package dev.dedup.loadtest.direct;

import dev.dedup.loadtest.driver.RequestFailure;
import dev.dedup.loadtest.driver.Transport;
import dev.dedup.loadtest.workload.EventTime;
import dev.dedup.loadtest.workload.VerdictTally;
import dev.dedup.wire.Verdict;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends a batch straight to Redis the way Tapjoy's Spark job did: the batch's messages grouped by bucket,
 * one {@code EVALSHA} of {@code tapjoy.lua} per bucket, every call of the batch written without waiting
 * (Lettuce pipelines on its one connection per shard), shards in parallel. The answer is one code per
 * message: {@code duplicate}, or {@link VerdictTally#NOT_DUPLICATE} (the script returns only duplicates).
 */
public final class TapjoyTransport implements Transport<byte[]> {

    /** Tapjoy's window: 24 hours. */
    static final long TTL_SECONDS = TimeUnit.HOURS.toSeconds(24);

    private static final int POSITION_BITS = 20;
    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;

    private final List<String> uris;
    private final ClientResources resources;
    private final List<RedisClient> clients = new ArrayList<>();
    private final List<StatefulRedisConnection<byte[], byte[]>> connections = new ArrayList<>();
    private final TapjoyBuckets buckets;
    private final String sha;
    private final byte[] ttl = Long.toString(TTL_SECONDS).getBytes(StandardCharsets.US_ASCII);

    public TapjoyTransport(List<String> uris, Duration timeout) {
        if (uris.isEmpty()) {
            throw new IllegalArgumentException("--direct: no Redis URI");
        }
        this.uris = List.copyOf(uris);
        this.resources = DefaultClientResources.create();
        this.buckets = new TapjoyBuckets(EventTime.EVENTS_PER_SECOND, uris.size());
        byte[] script = script();
        String loaded = null;
        try {
            for (String uri : uris) {
                RedisClient client = RedisClient.create(resources, RedisURI.create(uri));
                client.setOptions(ClientOptions.builder()
                        .timeoutOptions(TimeoutOptions.enabled(timeout))
                        .build());
                clients.add(client);
                StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
                connections.add(connection);
                loaded = connection.sync().scriptLoad(script);
            }
        } catch (RuntimeException e) {
            close();
            throw new IllegalStateException("--direct: cannot reach " + uris + ": " + e.getMessage(), e);
        }
        this.sha = loaded;
    }

    /** The planned slices per second (Tapjoy's buckets per second). */
    public int slicesPerSecond() {
        return buckets.slices();
    }

    @Override
    public byte[] prepare(byte[] body) {
        return body;
    }

    @Override
    public Future<byte[]> send(int worker, byte[] body, int items) {
        Context context = Vertx.currentContext();
        ByteBuffer in = ByteBuffer.wrap(body);
        // (bucket, position) packed and sorted: each bucket's messages become one run, in batch order.
        long[] order = new long[items];
        for (int k = 0; k < items; k++) {
            int at = k * TapjoyEncoding.MESSAGE_BYTES;
            long bucket = buckets.bucket(in.getInt(at + 24), in.getLong(at), in.getLong(at + 8));
            order[k] = bucket << POSITION_BITS | k;
        }
        Arrays.sort(order);
        byte[] verdicts = new byte[items];
        Arrays.fill(verdicts, VerdictTally.NOT_DUPLICATE);
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        for (int from = 0; from < items; ) {
            long bucket = order[from] >>> POSITION_BITS;
            int to = from + 1;
            while (to < items && order[to] >>> POSITION_BITS == bucket) {
                to++;
            }
            int[] members = new int[to - from];
            byte[][] args = new byte[1 + 2 * members.length][];
            args[0] = ttl;
            for (int j = 0; j < members.length; j++) {
                int k = (int) (order[from + j] & POSITION_MASK);
                members[j] = k;
                int at = k * TapjoyEncoding.MESSAGE_BYTES;
                args[1 + 2 * j] = Arrays.copyOfRange(body, at, at + 16);
                args[2 + 2 * j] = Arrays.copyOfRange(body, at + 16, at + 24);
            }
            byte[] key = buckets.key(bucket);
            StatefulRedisConnection<byte[], byte[]> connection = connections.get(buckets.shard(key));
            calls.add(connection
                    .async()
                    .<List<Object>>evalsha(sha, ScriptOutputType.MULTI, new byte[][] {key}, args)
                    .thenAccept(dups -> {
                        for (Object position : dups) {
                            verdicts[members[(int) ((Long) position - 1)]] = Verdict.DUPLICATE.code();
                        }
                    })
                    .toCompletableFuture());
            from = to;
        }
        CompletableFuture<byte[]> all =
                CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).thenApply(v -> verdicts);
        return Future.fromCompletionStage(all, context)
                .recover(cause -> Future.failedFuture(RequestFailure.io(unwrap(cause))));
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    @Override
    public String describe() {
        return "direct " + String.join(",", uris);
    }

    @Override
    public void close() {
        for (StatefulRedisConnection<byte[], byte[]> c : connections) {
            c.close();
        }
        for (RedisClient client : clients) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    private static byte[] script() {
        try (InputStream in = TapjoyTransport.class.getResourceAsStream("/tapjoy.lua")) {
            if (in == null) {
                throw new IllegalStateException("tapjoy.lua is missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
