package dev.dedup.agent.plan;

import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.Durations;
import dev.dedup.agent.config.value.Sizes;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code java -jar dedup-agent.jar plan --rate 2M/min --window 24h}: the Redis a deployment needs, printed
 * before it is deployed; with {@code --output kustomize}, as the overlay of deploy/kubernetes/redis-cluster
 * that runs it ({@link KustomizeOverlay}). Exit 0, or 2 with one line naming the bad argument.
 */
public final class PlanCommand {

    static final String USAGE = """
            usage: java -jar dedup-agent.jar plan --rate RATE [--window 24h] [--layout fingerprint|event-time]
                                                  [--shard-maxmemory 25GB] [--redis-cluster-groups 32]
                                                  [--output text|kustomize]

              --rate             ids claimed, copies included: 2M/min, 33334/s, 120M/h (a bare number is per second)
              --window           how long a claim lasts (the agent's --window): 24h by default
              --layout           fingerprint (the default: ids in any order) or event-time (a namespace with
                                 --namespace-event-rate: every copy carries its message's second)
              --shard-maxmemory  the maxmemory of one Redis shard: 25GB by default (a pod of 34Gi)
              --redis-cluster-groups
                                 the agents' --redis-cluster-groups, for a Redis Cluster: 32 by default
              --output           text (the default), or kustomize: the kustomization.yaml of an overlay of
                                 deploy/kubernetes/redis-cluster with this plan's pods, memory and volumes
            """;

    /** What the command was asked: the plan, the cluster's groups, and how to print it. */
    record Request(Plan plan, int clusterGroups, boolean kustomize) {}

    private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)([KMG]?)(?:/(s|min|h|d))?");

    private PlanCommand() {}

    /** Runs the command on {@code args} (after {@code plan}); returns the exit status. */
    public static int run(List<String> args, PrintStream out, PrintStream err) {
        String text;
        try {
            Request request = request(args);
            if (request == null) {
                out.print(USAGE);
                return 0;
            }
            text = request.kustomize()
                    ? KustomizeOverlay.render(request.plan(), request.clusterGroups(), args)
                    : render(request.plan(), request.clusterGroups());
        } catch (ConfigException | IllegalArgumentException e) {
            err.println("dedup-agent plan: " + e.getMessage());
            err.print(USAGE);
            return 2;
        }
        out.print(text);
        return 0;
    }

    /** The plan the arguments describe; null when they ask for help. */
    static Plan parse(List<String> args) {
        Request request = request(args);
        return request == null ? null : request.plan();
    }

    /** What the arguments ask; null when they ask for help. */
    static Request request(List<String> args) {
        Double rate = null;
        Duration window = Duration.ofHours(24);
        Plan.Layout layout = Plan.Layout.FINGERPRINT;
        long maxMemory = 25_000_000_000L;
        int groups = RedisOptions.DEFAULT_CLUSTER_GROUPS;
        boolean kustomize = false;
        for (int i = 0; i < args.size(); i++) {
            String flag = args.get(i);
            if (flag.equals("--help") || flag.equals("-h")) {
                return null;
            }
            if (!flag.startsWith("--")) {
                throw new ConfigException("unexpected '" + flag + "'");
            }
            String name = flag.contains("=") ? flag.substring(0, flag.indexOf('=')) : flag;
            String value;
            if (flag.contains("=")) {
                value = flag.substring(flag.indexOf('=') + 1);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new ConfigException(flag + " needs a value");
            }
            switch (name) {
                case "--rate" -> rate = rate(value);
                case "--window" -> window = Durations.parse("--window", value);
                case "--layout" ->
                    layout = switch (value) {
                        case "fingerprint" -> Plan.Layout.FINGERPRINT;
                        case "event-time" -> Plan.Layout.EVENT_TIME;
                        default ->
                            throw new ConfigException(
                                    "--layout: '" + value + "' is not a layout; write fingerprint or event-time");
                    };
                case "--shard-maxmemory" -> maxMemory = Sizes.parse("--shard-maxmemory", value);
                case "--redis-cluster-groups" -> groups = groups(value);
                case "--output" ->
                    kustomize = switch (value) {
                        case "text" -> false;
                        case "kustomize" -> true;
                        default ->
                            throw new ConfigException(
                                    "--output: '" + value + "' is not an output; write text or kustomize");
                    };
                default -> throw new ConfigException("unknown setting " + name);
            }
        }
        if (rate == null) {
            throw new ConfigException("--rate is required, e.g. --rate 2M/min");
        }
        return new Request(new Plan(rate, window, layout, maxMemory), groups, kustomize);
    }

    /** The agents' {@code --redis-cluster-groups}, as the agent accepts it ({@link RedisOptions#CLUSTER_GROUPS_BOUNDS}). */
    static int groups(String text) {
        int groups;
        try {
            groups = Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            groups = 0;
        }
        if (!RedisOptions.CLUSTER_GROUPS_BOUNDS.accepts(groups)) {
            throw new ConfigException("--redis-cluster-groups: '" + text + "' is not "
                    + RedisOptions.CLUSTER_GROUPS_BOUNDS.describe() + ", as the agent's");
        }
        return groups;
    }

    /** A rate as ids a second: {@code 2M/min}, {@code 33334/s}, {@code 1.5K/s}, {@code 120M/h}, {@code 33334}. */
    static double rate(String text) {
        Matcher m = RATE.matcher(text.trim());
        if (!m.matches()) {
            throw new ConfigException("--rate: '" + text + "' is not a rate; write e.g. 2M/min, 33334/s or 120M/h");
        }
        double n = Double.parseDouble(m.group(1))
                * switch (m.group(2)) {
                    case "K" -> 1e3;
                    case "M" -> 1e6;
                    case "G" -> 1e9;
                    default -> 1;
                };
        String per = m.group(3) == null ? "s" : m.group(3);
        double rate = n
                / switch (per) {
                    case "min" -> 60;
                    case "h" -> 3600;
                    case "d" -> 86_400;
                    default -> 1;
                };
        if (!(rate > 0)) {
            throw new ConfigException("--rate: '" + text + "' is not above 0");
        }
        return rate;
    }

    static String render(Plan p, int groups) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(
                Locale.ROOT,
                "%s ids a second for a %s window, %s%n%n",
                count(p.idsPerSecond()),
                Durations.format(p.window()),
                p.layout().title));
        row(
                s,
                "claims held",
                count(p.claimsHeld())
                        + (p.layout() == Plan.Layout.EVENT_TIME
                                ? " (two windows of event time: a window more for readers behind the newest)"
                                : " (a window of ids, and ended claims not yet dropped)"));
        row(
                s,
                "Redis memory for them",
                bytes(p.redisBytes()) + String.format(Locale.ROOT, " (%.1f bytes a claim)", p.layout().bytesPerClaim));
        row(
                s,
                "shards",
                p.shards()
                        + String.format(
                                Locale.ROOT,
                                " of maxmemory %s, each %.0f %% full after a window",
                                bytes(p.shardMaxMemory()),
                                100 * p.bytesPerShard() / p.shardMaxMemory()));
        row(
                s,
                "each shard's pods",
                "memory limit " + gibibytes(p.podMemoryLimit()) + ", volume " + gibibytes(p.podDisk())
                        + "; a primary and two replicas under Sentinel");
        row(s, "as a Redis Cluster", cluster(p, groups));
        row(
                s,
                "Redis CPU",
                String.format(
                        Locale.ROOT,
                        "%.2f cores in all, %.2f a shard (every id new: an upper bound)",
                        p.redisCores(),
                        p.redisCores() / p.shards()));
        row(s, "agents' CPU", String.format(Locale.ROOT, "%.2f cores in all, shared by the agents", p.agentCores()));
        s.append(String.format(
                Locale.ROOT,
                "%nThe figures come from shards holding a full window (docs/performance.md); the shipped alert%n"
                        + "fires when a shard passes %.0f %% of its maxmemory.%n",
                100 * Plan.FILL_AT));
        return s.toString();
    }

    /** The cluster's masters and pods, and its busiest master; or why its groups are too few. */
    static String cluster(Plan p, int groups) {
        int masters;
        try {
            masters = p.clusterMasters(groups);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        return String.format(
                Locale.ROOT,
                "%d masters with a replica each, %d pods; the busiest holds %d of %d groups, %.0f %% full",
                masters,
                2 * masters,
                Plan.busiestMasterGroups(groups, masters),
                groups,
                100 * p.busiestMasterBytes(groups, masters) / p.shardMaxMemory());
    }

    private static void row(StringBuilder s, String what, String value) {
        s.append(String.format(Locale.ROOT, "  %-22s %s%n", what, value));
    }

    /** 2,880,000,000 or 33,334. */
    static String count(double n) {
        return String.format(Locale.ROOT, "%,d", Math.round(n));
    }

    /** A Kubernetes quantity, rounded up to whole GiB: {@code 34Gi}. */
    static String gibibytes(long n) {
        return ((n + (1L << 30) - 1) >> 30) + "Gi";
    }

    /** Decimal units, as Redis and cloud providers write memory: 57.6 GB, 25 GB, 512 MB. */
    static String bytes(double n) {
        String[] units = {"B", "KB", "MB", "GB", "TB", "PB"};
        int u = 0;
        while (n >= 1000 && u < units.length - 1) {
            n /= 1000;
            u++;
        }
        return n >= 100 || n == Math.floor(n)
                ? String.format(Locale.ROOT, "%.0f %s", n, units[u])
                : String.format(Locale.ROOT, "%.1f %s", n, units[u]);
    }
}
