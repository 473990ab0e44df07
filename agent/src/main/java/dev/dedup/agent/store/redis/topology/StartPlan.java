package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.store.IncompatibleDeploymentException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What a start does with the topology records it read from the shards, decided without Redis: {@link
 * Topology#agreeOrRefuse} reads the records, asks {@link #decide}, and writes what the plan says. The plan is
 * to agree (every record is where {@code --redis} puts its shard), to stamp a new deployment (no shard holds a
 * record), to adopt shards without a record among shards with one (only when asked to), to join a declared
 * change of the shard list before, during or after its cut-over, or to refuse, naming what differs.
 */
final class StartPlan {

    /** What a start read from one shard: its name for messages, its record's key, and the record (null: none). */
    record Read(String shard, String key, String record) {}

    private final String deployment;
    private final boolean newDeployment;
    private final List<String> adopted;
    private final byte[][] before;
    private final byte[][] after;
    private final byte[][] stamps;
    private final boolean cutOver;
    private final boolean advancing;

    private StartPlan(
            String deployment,
            boolean newDeployment,
            List<String> adopted,
            byte[][] before,
            byte[][] after,
            byte[][] stamps,
            boolean cutOver,
            boolean advancing) {
        this.deployment = deployment;
        this.newDeployment = newDeployment;
        this.adopted = adopted;
        this.before = before;
        this.after = after;
        this.stamps = stamps;
        this.cutOver = cutOver;
        this.advancing = advancing;
    }

    /** The deployment the shards belong to, read or new. */
    String deployment() {
        return deployment;
    }

    /** Whether no shard held a record, so that every shard is stamped under a new deployment id. */
    boolean newDeployment() {
        return newDeployment;
    }

    /** Shards without a record, among shards with one, that are stamped because the start was asked to adopt them. */
    List<String> adopted() {
        return adopted;
    }

    /** The record shard {@code s} must hold before the cut-over (the only one without a declared change). */
    byte[] before(int s) {
        return before[s].clone();
    }

    /** The record shard {@code s} must hold after the cut-over. */
    byte[] after(int s) {
        return after[s].clone();
    }

    /** The record to write on shard {@code s}, which holds none; null when it holds one. */
    byte[] stamp(int s) {
        return stamps[s] == null ? null : stamps[s].clone();
    }

    /** Whether every shard is past the cut-over of a declared change: claims are made in the current list at once. */
    boolean cutOver() {
        return cutOver;
    }

    /** Whether another agent began the cut-over (some shards past it, some not): this one finishes it. */
    boolean advancing() {
        return advancing;
    }

    /**
     * The plan for the records {@code read} (one per port index), the shard lists {@code lists}, and
     * {@code adoptEmpty} ({@code --redis-adopt-empty-shards}); {@code newDeploymentId} names a new deployment.
     *
     * @throws IncompatibleDeploymentException when the records disagree with the lists, saying what differs
     * @throws StartRace when some shards hold no record while the others do, which another agent stamping them
     *     at this moment also looks like
     */
    static StartPlan decide(List<Read> read, ShardLists lists, boolean adoptEmpty, Supplier<String> newDeploymentId) {
        int k = read.size();
        List<String> names = read.stream().map(Read::shard).toList();
        String[] records = new String[k];
        Map<String, String>[] parsed = newArray(k);
        String deployment = null;
        for (int s = 0; s < k; s++) {
            records[s] = read.get(s).record();
            if (records[s] == null) {
                continue;
            }
            parsed[s] = TopologyRecord.parse(records[s]);
            if (parsed[s] == null) {
                throw new IncompatibleDeploymentException("redis: shard " + names.get(s) + " holds \"" + records[s]
                        + "\" under " + read.get(s).key()
                        + ", not a topology record of this agent; is --redis-prefix right?");
            }
            if (deployment == null) {
                deployment = parsed[s].get("deployment");
            } else if (!deployment.equals(parsed[s].get("deployment"))) {
                throw new IncompatibleDeploymentException("redis: shard " + names.get(s) + " belongs to deployment "
                        + parsed[s].get("deployment") + ", the shards before it to " + deployment
                        + ": --redis mixes shards of two deployments");
            }
        }
        Places places = lists.changing()
                ? Places.transition(names, lists, records, parsed, deployment)
                : Places.single(names, parsed, deployment);
        List<String> missing = new ArrayList<>();
        for (int s = 0; s < k; s++) {
            if (records[s] == null && !places.fresh[s]) {
                missing.add(names.get(s));
            }
        }
        boolean newDeployment = places.deployment == null;
        if (newDeployment) {
            places = places.stamped(newDeploymentId.get());
        } else if (!missing.isEmpty() && !adoptEmpty) {
            throw new StartRace(new IncompatibleDeploymentException(
                    "redis: " + missing + " hold no topology record while the other shards do:"
                            + " each lost its data (restarted without persistence, flushed, or replaced by an empty node) or"
                            + " was added without a declared transition. Its claims are gone either way; to accept that"
                            + " and stamp it, start one agent with --redis-adopt-empty-shards, then without it"));
        }
        byte[][] before = new byte[k][];
        byte[][] after = new byte[k][];
        byte[][] stamps = new byte[k][];
        for (int s = 0; s < k; s++) {
            before[s] = places.before(s);
            after[s] = places.after(s);
            if (records[s] == null) {
                stamps[s] = places.cutOver ? after[s] : before[s];
            }
        }
        return new StartPlan(
                places.deployment,
                newDeployment,
                newDeployment ? List.of() : List.copyOf(missing),
                before,
                after,
                stamps,
                places.cutOver,
                places.advancing);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, String>[] newArray(int k) {
        return new Map[k];
    }

    /** Where each shard stands before and after the cut-over, as the records read say. */
    private static final class Places {
        final String deployment;
        final long epoch; // of the list before the cut-over (the only list without a transition)
        final int[] positionBefore; // -1: not in the list before
        final int ofBefore;
        final int[] positionAfter; // -1: retired
        final int ofAfter;
        final boolean cutOver;
        final boolean advancing;
        /** Per shard, whether it is new in this topology: it is stamped, not missed, when it holds no record. */
        final boolean[] fresh;

        private Places(
                String deployment,
                long epoch,
                int[] positionBefore,
                int ofBefore,
                int[] positionAfter,
                int ofAfter,
                boolean cutOver,
                boolean advancing,
                boolean[] fresh) {
            this.deployment = deployment;
            this.epoch = epoch;
            this.positionBefore = positionBefore;
            this.ofBefore = ofBefore;
            this.positionAfter = positionAfter;
            this.ofAfter = ofAfter;
            this.cutOver = cutOver;
            this.advancing = advancing;
            this.fresh = fresh;
        }

        Places stamped(String newDeployment) {
            return new Places(
                    newDeployment, 1, positionBefore, ofBefore, positionAfter, ofAfter, cutOver, false, fresh);
        }

        byte[] before(int s) {
            return positionBefore[s] < 0 ? after(s) : TopologyRecord.of(deployment, epoch, positionBefore[s], ofBefore);
        }

        byte[] after(int s) {
            if (positionBefore == positionAfter) {
                return before(s);
            }
            return positionAfter[s] < 0
                    ? TopologyRecord.of(deployment, epoch + 1, TopologyRecord.RETIRED, ofAfter)
                    : TopologyRecord.of(deployment, epoch + 1, String.valueOf(positionAfter[s]), ofAfter);
        }

        /** No transition: every shard where {@code --redis} lists it, in one epoch. */
        static Places single(List<String> names, Map<String, String>[] parsed, String deployment) {
            int k = names.size();
            int[] position = new int[k];
            long epoch = 1;
            String epochOf = null;
            for (int s = 0; s < k; s++) {
                position[s] = s;
                if (parsed[s] == null) {
                    continue;
                }
                Map<String, String> r = parsed[s];
                if (!String.valueOf(s).equals(r.get("shard"))
                        || !String.valueOf(k).equals(r.get("of"))) {
                    throw new IncompatibleDeploymentException("redis: shard " + names.get(s) + " is "
                            + (TopologyRecord.RETIRED.equals(r.get("shard"))
                                    ? "retired"
                                    : "shard " + r.get("shard") + " of " + r.get("of"))
                            + " in topology epoch " + r.get("epoch") + ", but --redis lists it as shard " + s + " of "
                            + k + ": the shard list changed without a declared transition, which would forget claims."
                            + " Restore the order and count it was started with; to add or remove shards, follow"
                            + " docs/redis.md#changing-the-shard-list");
                }
                if (epochOf == null) {
                    epochOf = names.get(s);
                    epoch = Long.parseLong(r.get("epoch"));
                } else if (epoch != Long.parseLong(r.get("epoch"))) {
                    throw new IncompatibleDeploymentException("redis: shard " + names.get(s)
                            + " is in topology epoch " + r.get("epoch") + ", " + epochOf + " in epoch " + epoch
                            + ": a change of the shard list did not finish its cut-over; start with the"
                            + " --redis-previous and --redis-cutover it was declared with");
                }
            }
            return new Places(deployment, epoch, position, k, position, k, true, false, new boolean[k]);
        }

        /**
         * A declared change: the previous list's shards hold epoch {@code n} in its order (before the
         * cut-over) or {@code n+1} in the current one (after, or while another agent advances them); the
         * new shards hold {@code n+1} or nothing yet.
         */
        static Places transition(
                List<String> names,
                ShardLists lists,
                String[] records,
                Map<String, String>[] parsed,
                String deployment) {
            int k = names.size();
            int[] prev = lists.previous().shards();
            int[] cur = lists.current().shards();
            int[] positionBefore = new int[k];
            int[] positionAfter = new int[k];
            Arrays.fill(positionBefore, -1);
            Arrays.fill(positionAfter, -1);
            for (int i = 0; i < prev.length; i++) {
                positionBefore[prev[i]] = i;
            }
            for (int i = 0; i < cur.length; i++) {
                positionAfter[cur[i]] = i;
            }
            boolean[] fresh = new boolean[k];
            for (int s = 0; s < k; s++) {
                fresh[s] = positionBefore[s] < 0;
            }
            // The epoch before the cut-over: from a shard still in it, or one less than a shard past it.
            Long epoch = null;
            for (int s = 0; s < k && epoch == null; s++) {
                Map<String, String> r = parsed[s];
                if (r == null) {
                    continue;
                }
                long e = Long.parseLong(r.get("epoch"));
                boolean inBefore = positionBefore[s] >= 0
                        && String.valueOf(positionBefore[s]).equals(r.get("shard"))
                        && String.valueOf(prev.length).equals(r.get("of"));
                epoch = inBefore ? e : e - 1;
            }
            long n = epoch == null ? 1 : epoch;
            Places places = new Places(
                    deployment, n, positionBefore, prev.length, positionAfter, cur.length, false, false, fresh);
            int pastCutover = 0;
            int beforeCutover = 0;
            for (int s = 0; s < k; s++) {
                if (records[s] == null) {
                    continue;
                }
                boolean isBefore = records[s].equals(TopologyRecord.text(places.before(s)));
                boolean isAfter = records[s].equals(TopologyRecord.text(places.after(s)));
                if (isAfter && !isBefore) {
                    pastCutover++;
                } else if (isBefore && !isAfter) {
                    beforeCutover++;
                } else if (!isBefore) {
                    Map<String, String> r = parsed[s];
                    throw new IncompatibleDeploymentException("redis: shard " + names.get(s) + " is "
                            + (TopologyRecord.RETIRED.equals(r.get("shard"))
                                    ? "retired"
                                    : "shard " + r.get("shard") + " of " + r.get("of"))
                            + " in topology epoch " + r.get("epoch") + ", which is neither its place in"
                            + " --redis-previous (" + place(positionBefore[s], prev.length) + ", epoch " + n
                            + ") nor in --redis (" + place(positionAfter[s], cur.length) + ", epoch " + (n + 1)
                            + "): declare the change from the shard list the shards were last started with,"
                            + " in its order, writing each shard as it was written then");
                }
            }
            boolean allPast = pastCutover > 0 && beforeCutover == 0;
            return new Places(
                    deployment,
                    n,
                    positionBefore,
                    prev.length,
                    positionAfter,
                    cur.length,
                    allPast,
                    pastCutover > 0 && beforeCutover > 0,
                    fresh);
        }

        private static String place(int position, int of) {
            return position < 0 ? "not listed" : "shard " + position + " of " + of;
        }
    }
}
