package dev.dedup.deploy;

import dev.dedup.client.Claims;
import dev.dedup.client.DedupClient;
import dev.dedup.client.DedupException;
import dev.dedup.client.Owners;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The claim path of {@code dedup-spark}'s tasks as an executor runs it, without Spark: the agent found as the
 * library's tasks find the executor's own, from the environment alone ({@link DedupClient#fromEnvironment()}:
 * {@code DEDUP_URL}, {@code DEDUP_TOKEN}), and {@link Claims} claiming a chunk through it. Run by {@link ExecutorPodIT} in the executor's place in a pod: it claims one
 * chunk, then the same again as a re-run task would, and prints the verdicts of each ({@code FIRST new=20 retry=0
 * duplicate=0}, {@code AGAIN new=0 retry=20 duplicate=0}); a rejected claim prints {@code REJECTED} and the error,
 * and exits 3.
 *
 * <p>{@code java -cp ... dev.dedup.deploy.ExecutorClaimTask NAMESPACE ID_PREFIX COUNT}
 */
public final class ExecutorClaimTask {

    private ExecutorClaimTask() {}

    public static void main(String[] args) throws Exception {
        List<Item> chunk = new ArrayList<>();
        for (int i = 0; i < Integer.parseInt(args[2]); i++) {
            chunk.add(new Item(
                    args[1] + "-" + i, Owners.kafka("clicks", 3, i))); // as the transform writes a Kafka row's owner
        }
        Claims claims = new Claims(DedupClient.fromEnvironment(), args[0], Duration.ofSeconds(20));
        try {
            System.out.println("FIRST " + counts(claims.claim(chunk)));
            System.out.println("AGAIN " + counts(claims.claim(chunk)));
        } catch (DedupException e) {
            System.out.println("REJECTED " + e.getMessage());
            System.exit(3);
        }
    }

    private static String counts(List<Verdict> verdicts) {
        Map<Verdict, Integer> n = new EnumMap<>(Verdict.class);
        for (Verdict v : Verdict.values()) {
            n.put(v, 0);
        }
        verdicts.forEach(v -> n.merge(v, 1, Integer::sum));
        return "new=" + n.get(Verdict.NEW) + " retry=" + n.get(Verdict.RETRY) + " duplicate="
                + n.get(Verdict.DUPLICATE);
    }
}
