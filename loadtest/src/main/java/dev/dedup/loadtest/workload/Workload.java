package dev.dedup.loadtest.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The requests of one pass, all encoded up front so that the generator's own encoding (tens of bytes per
 * id, a few hundred nanoseconds) is not counted against what is measured: the timed part only sends bytes
 * that already exist and checks the answers.
 */
public record Workload(String name, String encoding, int ids, List<PreparedBatch> batches) {

    public Workload {
        batches = List.copyOf(batches);
    }

    /**
     * Encodes {@code plan} over the messages of {@code idSpace} in batches of {@code batchSize}, asking the
     * ledger what each copy should be answered, and noting for each batch the last earlier batch that
     * carries one of its ids.
     */
    public static Workload prepare(
            String name,
            SendPlan plan,
            IdSpace idSpace,
            Ledger ledger,
            String namespace,
            BatchEncoding encoding,
            int batchSize) {
        int sends = plan.size();
        List<PreparedBatch> batches = new ArrayList<>((sends + batchSize - 1) / batchSize);
        List<Message> messages = new ArrayList<>(Math.min(batchSize, sends));
        int[] lastBatch = new int[ledger.size()];
        Arrays.fill(lastBatch, -1);
        for (int start = 0, b = 0; start < sends; start += batchSize, b++) {
            int end = Math.min(sends, start + batchSize);
            byte[] expected = new byte[end - start];
            int dependsOn = -1;
            messages.clear();
            for (int k = start; k < end; k++) {
                int i = plan.indexes()[k];
                int copy = plan.copies()[k];
                messages.add(new Message(idSpace.id(i), Owners.of(copy, i), idSpace.eventSecond(i)));
                expected[k - start] = ledger.send(i, copy).code();
                if (lastBatch[i] != b) {
                    dependsOn = Math.max(dependsOn, lastBatch[i]);
                    lastBatch[i] = b;
                }
            }
            batches.add(new PreparedBatch(encoding.encode(namespace, messages), expected, dependsOn));
        }
        return new Workload(name, encoding.cliName(), sends, batches);
    }

    public long bodyBytes() {
        long sum = 0;
        for (PreparedBatch b : batches) {
            sum += b.body().length;
        }
        return sum;
    }
}
