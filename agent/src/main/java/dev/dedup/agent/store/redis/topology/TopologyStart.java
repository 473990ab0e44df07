package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.store.IncompatibleDeploymentException;
import dev.dedup.agent.store.redis.access.Housekeeping;
import dev.dedup.agent.store.redis.access.RedisFailures;
import dev.dedup.agent.store.redis.access.RedisKeys;
import dev.dedup.agent.store.redis.access.RedisPort;
import dev.dedup.agent.store.redis.access.Retry;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The start's part of the {@link Topology}: reads every shard's record, asks {@link StartPlan} what to do, and
 * stamps what it says, before anything else is written. It blocks the thread that builds the store until then; the
 * calls themselves, and the pauses between readings when another agent is stamping at the same moment, do not
 * block any thread.
 * As {@link StartPlan} decides, it:
 *
 * <ul>
 *   <li>when no shard has one (a new deployment, or shards written by a version without records),
 *       stamps them in the order of {@code --redis};
 *   <li>when every shard's record agrees with the order of {@code --redis}, starts;
 *   <li>during a declared change ({@code --redis-previous}, {@code --redis-cutover}): the previous list's
 *       shards must hold epoch {@code n} in its order and the new shards are stamped {@code n+1} in the
 *       current order; at the cut-over the first agent to reach it advances every record to epoch
 *       {@code n+1} (the others follow when they reach it, or when a shard tells them), and only then
 *       makes claims in the current list. An agent still on the previous list is refused by every shard
 *       from then on (503): it cannot decide alone where a claim lives;
 *   <li>otherwise refuses to start (exit 2) with one line saying what differs: a shard added or removed,
 *       the order changed, a shard of another deployment, or a shard without a record among shards with
 *       one (it lost its data, or was added without declaring the change). {@code
 *       --redis-adopt-empty-shards} stamps such shards instead, accepting that their claims are gone.
 * </ul>
 */
public final class TopologyStart {

    private static final System.Logger LOG = System.getLogger(Topology.class.getName());

    /** Reads ten times over about two seconds before refusing what another agent may be stamping. */
    private static final Retry START_RACE = Retry.every(10, 200);

    private TopologyStart() {}

    /**
     * Reads every shard's record and agrees, stamps or refuses as {@link Topology} says; then watches the records
     * on the housekeeping thread.
     *
     * @throws IncompatibleDeploymentException naming what differs and how to declare a change (the agent exits 2)
     */
    public static Topology agreeOrRefuse(
            RedisPort port,
            RedisKeys keys,
            ShardLists lists,
            boolean adoptEmpty,
            Housekeeping housekeeping,
            MeterRegistry registry) {
        Agreed agreed;
        try {
            agreed = START_RACE
                    .run(housekeeping, () -> agreeOnce(port, keys, lists, adoptEmpty), (done, failure, pause) -> {
                        if (!(RedisFailures.unwrap(failure) instanceof StartRace)) {
                            return false;
                        }
                        LOG.log(
                                Level.INFO,
                                "redis: the shards' records are incomplete or changed as this agent stamped them"
                                        + " (another agent starting at the same moment?); reading them again");
                        return true;
                    })
                    .toCompletableFuture()
                    .join();
        } catch (CompletionException e) {
            Throwable cause = RedisFailures.unwrap(e);
            if (cause instanceof StartRace race) {
                throw race.refusal;
            }
            if (cause instanceof IncompatibleDeploymentException refused) {
                throw refused;
            }
            throw e;
        }
        Topology topology = new Topology(port, lists, housekeeping, agreed.key, agreed.plan, registry);
        if (lists.changing() && !topology.cutOver()) {
            LOG.log(
                    Level.INFO,
                    "redis: changing the shard list: claims stay in --redis-previous until the cut-over at "
                            + Instant.ofEpochSecond(lists.cutoverSecond()) + ", then move to --redis");
            if (agreed.plan.advancing()) {
                topology.advance(); // another agent began: finish what it started
            }
        }
        return topology;
    }

    private record Agreed(byte[][] key, StartPlan plan) {}

    /**
     * One reading of every shard's record, and the stamps {@link StartPlan} says to write, without blocking: it
     * fails with {@link StartRace} when another agent is stamping the same shards.
     */
    private static CompletionStage<Agreed> agreeOnce(
            RedisPort port, RedisKeys keys, ShardLists lists, boolean adoptEmpty) {
        int k = port.shards();
        byte[][] key = new byte[k][];
        List<CompletableFuture<String>> held = new ArrayList<>(k);
        for (int s = 0; s < k; s++) {
            key[s] = TopologyRecord.key(keys, s);
            held.add(RecordCall.read(port, s, key[s]).toCompletableFuture());
        }
        return CompletableFuture.allOf(held.toArray(CompletableFuture[]::new)).thenCompose(ignored -> {
            List<StartPlan.Read> read = new ArrayList<>(k);
            for (int s = 0; s < k; s++) {
                read.add(new StartPlan.Read(
                        port.name(s), TopologyRecord.text(key[s]), held.get(s).join()));
            }
            StartPlan plan = StartPlan.decide(
                    read, lists, adoptEmpty, () -> UUID.randomUUID().toString());
            if (plan.newDeployment()) {
                LOG.log(
                        Level.INFO,
                        "redis: no shard holds a topology record; stamping " + k + " shards as deployment "
                                + plan.deployment() + " in the order of --redis"
                                + (lists.changing() ? "-previous (epoch 1) and --redis (epoch 2)" : ""));
            } else if (!plan.adopted().isEmpty()) {
                LOG.log(
                        Level.WARNING,
                        "redis: adopting " + plan.adopted() + " (no topology record): claims they held are"
                                + " forgotten; ids on them are answered new again");
            }
            CompletionStage<Void> stamped = CompletableFuture.completedFuture(null);
            for (int s = 0; s < k; s++) {
                int shard = s;
                byte[] stamp = plan.stamp(s);
                if (stamp != null) {
                    stamped = stamped.thenCompose(before -> RecordCall.stamp(port, shard, key[shard], stamp))
                            .thenAccept(now -> {
                                if (!TopologyRecord.text(stamp).equals(now)) {
                                    throw new StartRace(new IncompatibleDeploymentException("redis: shard "
                                            + port.name(shard) + " was stamped \"" + now
                                            + "\" by another agent starting with another shard list at the same time"));
                                }
                            });
                }
            }
            return stamped.thenApply(ignored2 -> new Agreed(key, plan));
        });
    }
}
