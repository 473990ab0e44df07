package dev.dedup.loadtest;

import dev.dedup.loadtest.driver.Target;
import dev.dedup.loadtest.workload.EventTimeEncoding;
import dev.dedup.loadtest.workload.Format;
import dev.dedup.loadtest.workload.Scenario;
import dev.dedup.wire.Limits;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Parses the command line into {@link LoadOptions}; every mistake is a {@link UsageException} of one line. */
public final class CommandLine {

    static final String USAGE = """
            usage: java -jar dedup-loadtest.jar [options]

            Sends batches of (id, owner) to dedup agents, checks every verdict against what it should be,
            and reports throughput and latency per scenario.

              --target URL[,URL...]  agents, http://HOST:PORT (default %s); workers round-robin over them
              --workers W            requests in flight, one connection per worker and target (default %d)
              --batch B              items per request (default %d)
              --ids N                distinct ids per scenario (default %d); 2000000, 2_000_000 and 2M all work
              --binary | --json      request format (default binary)
              --ns NAME              namespace (default %s)
              --event-time           send each message's event time ("ts"; 33,334 messages a second of
                                     event time, Tapjoy's 2 M a minute), for an agent whose namespace is
                                     filed by event time (--namespace-event-rate NS=33334)
              --event-epoch SECOND   epoch second of the first message's event time (default: the start
                                     of the hour 4 hours ago, so that every event time is in the past,
                                     inside a 24 h window, and the same for runs within one hour)
              --direct URI[,URI...]  instead of agents, send straight to these Redis shards (redis://HOST:PORT)
                                     with Tapjoy's design: buckets of ~100 ids keyed by the message's
                                     second and a slice, one Lua call per bucket (HMGET, compare, HMSET,
                                     return the duplicates), pipelined, shards in parallel
              --scenario S           cold | retry | duplicate | mixed | all, or a comma-separated list
                                     (default all: cold, retry, duplicate over the same ids, then mixed)
                                       cold       fresh ids, owners p<partition>:<offset>; all must be new
                                       retry      same ids, same owners; all must be retry
                                       duplicate  same ids, other owners; all must be duplicate
                                       mixed      fresh ids of its own, with producer duplicates and
                                                  replayed batches spread through the stream
                                     retry or duplicate first need --run-id of a run that ran cold
              --dup-rate F           mixed: share of messages the producer writes twice (default %s)
              --retry-rate F         mixed: share of batches replayed by a retried task (default %s)
              --dup-spread N         mixed: a copy comes 4 batches plus up to N ids after its original
                                     (default %d)
              --rate R               offer R ids per second (latency counted from each batch's scheduled
                                     time) instead of sending as fast as answers come back
              --run-id ID            derive ids from this run id (default: a random one, so every run
                                     claims fresh ids); printed at the start so a later run can reuse it
              --seed S               key of the id derivation, with the run id (default %d)
              --warmup N             ids sent first through the same scenarios and not measured (default 0)
              --max-errors N         failed requests tolerated (default 0); beyond, the run stops and exits 1
              --resend               send a failed batch (503, refused, timed out) again after 100 ms, to the
                                     next target, until it is answered, as a worker beside its sidecar would;
                                     its latency runs until then, and failures spend no --max-errors
              --samples FILE         append one JSON line to FILE every --sample-every while the run goes: ids
                                     and latency percentiles of the interval, wrong verdicts and failed requests
                                     since the start
              --sample-every SECONDS interval of --samples (default %d)
              --timeout-ms MS        per request (default %d)
              --output table|json    json: also print one JSON line per scenario after the table
              --report FILE.html     also write an HTML report: latency distribution and throughput over time
              --cpu-redis PID[,PID]  processes of this machine (the Redis shards) whose CPU time per id each
                                     scenario reports (redis_cpu_us_per_id in the JSON line, from /proc)
              --cpu-agent PID[,PID]  the same for the agents (agent_cpu_us_per_id)
              --quiet                no progress line on stderr
              --help                 this text

            Request bodies of a scenario are all encoded before its clock starts, so the generator's own
            encoding does not count against the agent.

            With --direct, Tapjoy's script answers only duplicate or not: a not-duplicate counts as the new or retry
            the ledger expected (and as a missed duplicate where a duplicate was expected).

            exit status: 0 all verdicts as expected; 3 a false drop (a first copy answered duplicate) or a
            missed duplicate (a later copy by another owner answered new); 1 more failed requests than
            --max-errors; 2 bad arguments.
            """.formatted(
                    LoadOptions.DEFAULT_TARGET,
                    LoadOptions.DEFAULT_WORKERS,
                    LoadOptions.DEFAULT_BATCH,
                    LoadOptions.DEFAULT_IDS,
                    LoadOptions.DEFAULT_NAMESPACE,
                    LoadOptions.Mix.DEFAULT.dupRate(),
                    LoadOptions.Mix.DEFAULT.retryRate(),
                    LoadOptions.Mix.DEFAULT.spread(),
                    LoadOptions.DEFAULT_SEED,
                    LoadOptions.DEFAULT_SAMPLE_EVERY.toSeconds(),
                    LoadOptions.DEFAULT_TIMEOUT.toMillis());

    private static final Set<String> FLAGS =
            Set.of("--binary", "--json", "--event-time", "--quiet", "--resend", "--help", "-h");

    private CommandLine() {}

    /** True when {@code args} ask for the usage text. */
    public static boolean wantsHelp(String[] args) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    public static LoadOptions parse(String... args) {
        String targets = LoadOptions.DEFAULT_TARGET;
        int workers = LoadOptions.DEFAULT_WORKERS;
        int batch = LoadOptions.DEFAULT_BATCH;
        int ids = LoadOptions.DEFAULT_IDS;
        Format format = null;
        String ns = LoadOptions.DEFAULT_NAMESPACE;
        String scenario = "all";
        long seed = LoadOptions.DEFAULT_SEED;
        String runId = null;
        int warmup = 0;
        boolean json = false;
        boolean quiet = false;
        long maxErrors = 0;
        long timeoutMillis = LoadOptions.DEFAULT_TIMEOUT.toMillis();
        String direct = null;
        boolean targetGiven = false;
        double dupRate = LoadOptions.Mix.DEFAULT.dupRate();
        double retryRate = LoadOptions.Mix.DEFAULT.retryRate();
        int spread = LoadOptions.Mix.DEFAULT.spread();
        double rate = 0;
        List<Long> redisPids = List.of();
        List<Long> agentPids = List.of();
        Path report = null;
        boolean eventTime = false;
        long eventEpoch = 0;
        boolean resend = false;
        Path samples = null;
        long sampleSeconds = LoadOptions.DEFAULT_SAMPLE_EVERY.toSeconds();

        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String name = arg;
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                name = arg.substring(0, eq);
                value = arg.substring(eq + 1);
            }
            if (FLAGS.contains(name)) {
                if (value != null) {
                    throw new UsageException(name + " takes no value");
                }
                switch (name) {
                    case "--binary", "--json" -> {
                        Format chosen = name.equals("--json") ? Format.JSON : Format.BINARY;
                        if (format != null && format != chosen) {
                            throw new UsageException("--binary and --json exclude each other");
                        }
                        format = chosen;
                    }
                    case "--quiet" -> quiet = true;
                    case "--event-time" -> eventTime = true;
                    case "--resend" -> resend = true;
                    default -> {} // --help is handled before parsing
                }
                continue;
            }
            if (value == null) {
                if (!name.startsWith("--")) {
                    throw new UsageException("unexpected argument '" + arg + "' (see --help)");
                }
                if (i + 1 >= args.length) {
                    throw new UsageException(name + " needs a value (see --help)");
                }
                value = args[++i];
            }
            switch (name) {
                case "--target" -> {
                    targets = value;
                    targetGiven = true;
                }
                case "--direct" -> direct = value;
                case "--dup-rate" -> dupRate = share(name, value);
                case "--retry-rate" -> retryRate = share(name, value);
                case "--dup-spread" -> spread = (int) count(name, value, 0, LoadOptions.MAX_IDS);
                case "--rate" -> rate = count(name, value, 1, 1_000_000_000L);
                case "--cpu-redis" -> redisPids = pids(name, value);
                case "--cpu-agent" -> agentPids = pids(name, value);
                case "--report" -> report = Path.of(value);
                case "--samples" -> samples = Path.of(value);
                case "--sample-every" -> sampleSeconds = count(name, value, 1, 86_400);
                case "--event-epoch" ->
                    eventEpoch = count(name, value, 1, 0xffff_ffffL - EventTimeEncoding.RUN_SPAN_SECONDS);
                case "--workers" -> workers = (int) count(name, value, 1, LoadOptions.MAX_WORKERS);
                case "--batch" -> batch = (int) count(name, value, 1, LoadOptions.MAX_BATCH);
                case "--ids" -> ids = (int) count(name, value, 1, LoadOptions.MAX_IDS);
                case "--ns" -> ns = value;
                case "--scenario" -> scenario = value;
                case "--seed" -> seed = seed(value);
                case "--run-id" -> runId = value;
                case "--warmup" -> warmup = (int) count(name, value, 0, LoadOptions.MAX_IDS);
                case "--max-errors" -> maxErrors = count(name, value, 0, Long.MAX_VALUE);
                case "--timeout-ms" ->
                    timeoutMillis = count(name, value, 1, Duration.ofHours(1).toMillis());
                case "--output" ->
                    json = switch (value) {
                        case "json" -> true;
                        case "table" -> false;
                        default -> throw new UsageException("--output: '" + value + "' is not table or json");
                    };
                default -> throw new UsageException("unknown option '" + name + "' (see --help)");
            }
        }

        if (!Limits.isValidNamespace(ns)) {
            throw new UsageException("--ns: '" + ns + "' is not a namespace (1 to 64 of A-Z a-z 0-9 . _ -)");
        }
        if (runId != null && runId.isBlank()) {
            throw new UsageException("--run-id: empty");
        }
        List<Scenario> scenarios;
        List<Target> targetList = new ArrayList<>();
        try {
            scenarios = Scenario.parse(scenario);
            for (String t : targets.split(",", -1)) {
                targetList.add(Target.parse(t));
            }
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        List<String> directUris = new ArrayList<>();
        if (direct != null) {
            if (targetGiven) {
                throw new UsageException(
                        "--direct and --target exclude each other: the run goes to Redis or to agents");
            }
            if (format == Format.JSON) {
                throw new UsageException("--json is a request format of the agent; --direct sends Redis commands");
            }
            for (String uri : direct.split(",", -1)) {
                String u = uri.trim();
                if (!u.startsWith("redis://") || u.length() <= "redis://".length()) {
                    throw new UsageException("--direct: '" + uri + "' is not redis://HOST:PORT");
                }
                directUris.add(u);
            }
        }
        if (runId == null && repeatsBeforeCold(scenarios)) {
            throw new UsageException("--scenario " + scenario + " re-sends the ids of an earlier run: give that run's"
                    + " --run-id (and --seed), or use --scenario all");
        }
        if (eventEpoch != 0 && !eventTime) {
            throw new UsageException("--event-epoch needs --event-time");
        }
        if (eventTime && direct != null) {
            throw new UsageException("--event-time is for agents; --direct always files by event time");
        }
        if (eventTime && eventEpoch == 0) {
            eventEpoch = EventTimeEncoding.defaultEpoch(System.currentTimeMillis() / 1000);
        }
        boolean runIdGiven = runId != null;
        if (runId == null) {
            runId = Long.toHexString(new SecureRandom().nextLong());
        }
        return new LoadOptions(
                targetList,
                workers,
                batch,
                ids,
                format == null ? Format.BINARY : format,
                ns,
                scenarios,
                seed,
                runId,
                runIdGiven,
                warmup,
                json,
                quiet,
                maxErrors,
                Duration.ofMillis(timeoutMillis),
                directUris,
                new LoadOptions.Mix(dupRate, retryRate, spread),
                rate,
                report,
                eventEpoch,
                redisPids,
                agentPids,
                resend,
                samples,
                Duration.ofSeconds(sampleSeconds));
    }

    /** Process ids, comma-separated, each of a running process of this machine. */
    static List<Long> pids(String name, String value) {
        List<Long> out = new java.util.ArrayList<>();
        for (String p : value.split(",")) {
            long pid = count(name, p.trim(), 1, Integer.MAX_VALUE);
            if (!java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc", Long.toString(pid), "stat"))) {
                throw new UsageException(name + ": no process " + pid + " on this machine (/proc/" + pid + "/stat)");
            }
            out.add(pid);
        }
        return out;
    }

    /** A whole number in {@code [min, max]}; {@code _} separators and a {@code k}, {@code M} or {@code G} suffix. */
    static long count(String name, String value, long min, long max) {
        String s = value.trim().replace("_", "").toLowerCase(Locale.ROOT);
        long unit = 1;
        if (!s.isEmpty()) {
            switch (s.charAt(s.length() - 1)) {
                case 'k' -> unit = 1_000;
                case 'm' -> unit = 1_000_000;
                case 'g' -> unit = 1_000_000_000;
                default -> {}
            }
        }
        if (unit != 1) {
            s = s.substring(0, s.length() - 1);
        }
        long n;
        try {
            n = Math.multiplyExact(Long.parseLong(s), unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new UsageException(name + ": '" + value + "' is not a whole number");
        }
        if (n < min || n > max) {
            throw new UsageException(name + ": " + value + " is out of range; use " + min + " to " + max);
        }
        return n;
    }

    /** True when retry or duplicate comes before any cold pass that would claim their ids. */
    private static boolean repeatsBeforeCold(List<Scenario> scenarios) {
        for (Scenario s : scenarios) {
            if (s == Scenario.COLD) {
                return false;
            }
            if (s.repeatsCold()) {
                return true;
            }
        }
        return false;
    }

    /** A share from 0 to 1, e.g. {@code 0.05}. */
    static double share(String name, String value) {
        double d;
        try {
            d = Double.parseDouble(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException(name + ": '" + value + "' is not a number");
        }
        if (!(d >= 0 && d <= 1)) {
            throw new UsageException(name + ": " + value + " is out of range; use 0 to 1");
        }
        return d;
    }

    private static long seed(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new UsageException("--seed: '" + value + "' is not a 64-bit integer");
        }
    }
}
