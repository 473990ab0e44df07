package dev.dedup.agent.store.embedded;

import dev.dedup.codec.Batch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Batches built the way the decoder builds them, and the plumbing the store tests share. */
final class TestBatches {

    private TestBatches() {}

    static Batch batch(String namespace, String owner, String... ids) {
        Batch.Builder builder = Batch.builder(ids.length);
        byte[] o = owner.getBytes(StandardCharsets.UTF_8);
        for (String id : ids) {
            byte[] i = id.getBytes(StandardCharsets.UTF_8);
            builder.add(i, 0, i.length, o, 0, o.length);
        }
        return builder.build(namespace);
    }

    static Batch batch(String namespace, String owner, List<byte[]> ids, int from, int to) {
        Batch.Builder builder = Batch.builder(to - from);
        byte[] o = owner.getBytes(StandardCharsets.UTF_8);
        for (int k = from; k < to; k++) {
            byte[] i = ids.get(k);
            builder.add(i, 0, i.length, o, 0, o.length);
        }
        return builder.build(namespace);
    }

    /** {@code count} distinct random 16-byte ids from a fixed seed. */
    static List<byte[]> randomIds(long seed, int count) {
        Random random = new Random(seed);
        byte[][] ids = new byte[count][16];
        for (byte[] id : ids) {
            random.nextBytes(id);
        }
        return List.of(ids);
    }

    static <T> T join(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("stage failed", e.getCause());
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(e);
        }
    }

    static byte[] codes(int... codes) {
        byte[] b = new byte[codes.length];
        for (int i = 0; i < codes.length; i++) {
            b[i] = (byte) codes[i];
        }
        return b;
    }
}
