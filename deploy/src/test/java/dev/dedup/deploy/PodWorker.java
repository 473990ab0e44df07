package dev.dedup.deploy;

import dev.dedup.client.DedupClient;
import dev.dedup.client.DedupException;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The worker of {@link PodSimulationIT}, run in its own container in the pod's network namespace: it claims
 * batches from the agent at 127.0.0.1 as a stream consumer would, retrying a batch that got no answer with
 * the same owners, and sends a second copy (another owner) of part of every batch. It prints one line per
 * event and a summary; it exits 0 only if every message got a verdict that a correct agent may give. It finds the
 * agent as a worker of the manifests does, in its environment ({@code DEDUP_URL}, {@code DEDUP_TOKEN}).
 *
 * <p>{@code java -cp ... dev.dedup.deploy.PodWorker BATCHES BATCH_SIZE}
 */
public final class PodWorker {

    private static int unavailable;
    private static int refused;
    private static int answered503;

    private PodWorker() {}

    public static void main(String[] args) throws Exception {
        DedupClient client = DedupClient.fromEnvironment();
        int batches = Integer.parseInt(args[0]);
        int size = Integer.parseInt(args[1]);
        int processed = 0;
        int skipped = 0;
        int wrong = 0;
        for (int b = 0; b < batches; b++) {
            List<Item> batch = new ArrayList<>();
            List<Item> copies = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                batch.add(new Item("m-" + b + "-" + i, "0:" + (b * size + i)));
                if (i % 10 == 0) {
                    copies.add(new Item("m-" + b + "-" + i, "1:" + (b * size + i)));
                }
            }
            int attempts = 0;
            List<Verdict> verdicts;
            while (true) {
                attempts++;
                try {
                    verdicts = client.claim("pod", batch);
                    break;
                } catch (IOException e) {
                    note(b, e);
                    Thread.sleep(100);
                }
            }
            for (Verdict v : verdicts) {
                // A first answer is new; after an attempt without answer, part may have been claimed: retry.
                boolean ok = v == Verdict.NEW || (attempts > 1 && v == Verdict.RETRY);
                if (ok) {
                    processed++;
                } else {
                    wrong++;
                    System.out.println("WRONG batch " + b + ": " + v + " after " + attempts + " attempts");
                }
            }
            List<Verdict> copyVerdicts = claimUntilAnswered(client, b, copies);
            for (Verdict v : copyVerdicts) {
                if (v == Verdict.DUPLICATE) {
                    skipped++;
                } else {
                    wrong++;
                    System.out.println("WRONG copy in batch " + b + ": " + v);
                }
            }
            System.out.println("BATCH " + b + " attempts " + attempts);
            Thread.sleep(20);
        }
        // Nothing claimed before the agent's restart was lost: every id is still this owner's, and a copy.
        int lost = 0;
        for (int b = 0; b < batches; b++) {
            List<Item> batch = new ArrayList<>();
            List<Item> other = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                batch.add(new Item("m-" + b + "-" + i, "0:" + (b * size + i)));
                other.add(new Item("m-" + b + "-" + i, "2:" + (b * size + i)));
            }
            int lostHere = 0;
            for (Verdict v : claimUntilAnswered(client, b, batch)) {
                lostHere += v == Verdict.RETRY ? 0 : 1;
            }
            for (Verdict v : claimUntilAnswered(client, b, other)) {
                lostHere += v == Verdict.DUPLICATE ? 0 : 1;
            }
            if (lostHere > 0) {
                System.out.println("LOST batch " + b + ": " + lostHere);
            }
            lost += lostHere;
        }
        System.out.println("DONE processed " + processed + " skipped " + skipped + " wrong " + wrong + " lost " + lost
                + " unavailable " + unavailable + " refused " + refused + " answered503 " + answered503);
        System.exit(wrong == 0 && lost == 0 && processed == batches * size ? 0 : 1);
    }

    private static List<Verdict> claimUntilAnswered(DedupClient client, int b, List<Item> items)
            throws InterruptedException {
        while (true) {
            try {
                return client.claim("pod", items);
            } catch (IOException e) {
                note(b, e);
                Thread.sleep(100);
            }
        }
    }

    /** No verdict: the agent is down (connection refused) or cannot decide (503). Nothing may be skipped. */
    private static void note(int batch, IOException e) {
        unavailable++;
        if (e instanceof DedupException d) {
            if (d.status() == 503) {
                answered503++;
                System.out.println("UNAVAILABLE batch " + batch + ": 503 " + d.getMessage());
            } else {
                System.out.println("WRONG batch " + batch + ": rejected " + d.status() + " " + d.getMessage());
                System.exit(2);
            }
        } else {
            refused++;
            System.out.println("UNAVAILABLE batch " + batch + ": no answer " + e);
        }
    }
}
