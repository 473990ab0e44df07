package dev.dedup.agent.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Builds {@link AgentOptions} from flags, {@code DEDUP_*} environment variables, a properties file and
 * defaults, in that order of precedence. Every setting has one name: {@code --max-batch} on the command
 * line, {@code DEDUP_MAX_BATCH} in the environment, {@code max-batch} in the file. Windows of single
 * namespaces are {@code namespace.<ns>.window=48h} in the file, {@code --namespace-window ns=48h}
 * (repeatable) or {@code DEDUP_NAMESPACE_WINDOWS=ns=48h,other=1h}; namespaces that file claims by event
 * time likewise {@code namespace.<ns>.event-rate=33334}, {@code --namespace-event-rate ns=33334} or
 * {@code DEDUP_NAMESPACE_EVENT_RATES}; and window modes {@code namespace.<ns>.window-mode=sliding},
 * {@code --namespace-window-mode ns=sliding} or {@code DEDUP_NAMESPACE_WINDOW_MODES}.
 *
 * <p>Unknown settings are errors, so that a typo does not silently fall back to a default.
 */
public final class ConfigLoader {

    /** The settings, in the order {@code --help} lists them. */
    public static final Map<String, String> SETTINGS = settings();

    private static final java.util.Set<String> BOOLEAN_FLAGS =
            java.util.Set.of("insecure-bind", "redis-adopt-empty-shards");
    private static final String NAMESPACE_PREFIX = "namespace.";
    private static final String WINDOW_SUFFIX = ".window";
    private static final String EVENT_RATE_SUFFIX = ".event-rate";
    private static final String WINDOW_MODE_SUFFIX = ".window-mode";

    /** The per-namespace settings: flag, file-key suffix, environment variable, the form of one entry. */
    private record NamespaceSetting(String flag, String suffix, String env, String form) {}

    private static final List<NamespaceSetting> NAMESPACE_SETTINGS = List.of(
            new NamespaceSetting(
                    "namespace-window", WINDOW_SUFFIX, "DEDUP_NAMESPACE_WINDOWS", "ns=duration, e.g. clicks=48h"),
            new NamespaceSetting(
                    "namespace-event-rate",
                    EVENT_RATE_SUFFIX,
                    "DEDUP_NAMESPACE_EVENT_RATES",
                    "ns=ids per second, e.g. clicks=33334"),
            new NamespaceSetting(
                    "namespace-window-mode",
                    WINDOW_MODE_SUFFIX,
                    "DEDUP_NAMESPACE_WINDOW_MODES",
                    "ns=fixed or ns=sliding, e.g. clicks=sliding"));

    /** The per-namespace settings' flags ({@code namespace-window}, ...), for docs and tests. */
    public static List<String> namespaceFlags() {
        return NAMESPACE_SETTINGS.stream().map(NamespaceSetting::flag).toList();
    }

    private static NamespaceSetting namespaceSetting(String flagOrEnv) {
        for (NamespaceSetting setting : NAMESPACE_SETTINGS) {
            if (setting.flag().equals(flagOrEnv) || setting.env().equals(flagOrEnv)) {
                return setting;
            }
        }
        return null;
    }

    private static boolean isNamespaceKey(String key) {
        return NAMESPACE_SETTINGS.stream().anyMatch(setting -> namespaceOf(key, setting.suffix()) != null);
    }

    /** The namespace of {@code namespace.<ns><suffix>}, or null when the key is not one (or names none). */
    private static String namespaceOf(String key, String suffix) {
        if (!key.startsWith(NAMESPACE_PREFIX)
                || !key.endsWith(suffix)
                || key.length() <= NAMESPACE_PREFIX.length() + suffix.length()) {
            return null;
        }
        return key.substring(NAMESPACE_PREFIX.length(), key.length() - suffix.length());
    }

    private final Map<String, String> values = new HashMap<>();
    private final Map<String, String> origins = new HashMap<>();

    private ConfigLoader() {}

    private static Map<String, String> settings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("host", "address to bind (default " + HttpOptions.DEFAULT_HOST + ")");
        s.put("port", "port to bind (default " + HttpOptions.DEFAULT_PORT + "; 0 picks a free one)");
        s.put(
                "ops-port",
                "a port of its own for /health/live, /health/ready, /metrics and /v1/stats, besides --port; any"
                        + " address may be bound without --token (default: none, they are on --port alone)");
        s.put("ops-host", "address of --ops-port (default " + OpsOptions.DEFAULT_HOST + ")");
        s.put("data-dir", "directory of the embedded store (default ./" + EmbeddedStoreOptions.DEFAULT_DATA_DIR + ")");
        s.put(
                "embedded-slots",
                "capacity of the embedded store in ids (default " + EmbeddedStoreOptions.DEFAULT_SLOTS
                        + ", 16 bytes each)");
        s.put(
                "embedded-ways",
                "slots per set of the embedded store: 4, 8 or 16 (default " + EmbeddedStoreOptions.DEFAULT_WAYS + ")");
        s.put(
                "redis",
                "Redis shards, comma-separated redis://[user:password@]host:port or rediss:// (TLS);"
                        + " or one Redis Cluster, redis-cluster://[user:password@]host:port[,host:port...]"
                        + " (rediss-cluster:// for TLS); none: the embedded store");
        s.put(
                "redis-cluster-groups",
                "with a Redis Cluster: groups (one hash slot each) ids are spread over, a power of two from 1 to"
                        + " 1024 (default " + RedisOptions.DEFAULT_CLUSTER_GROUPS + ")");
        s.put(
                "redis-previous",
                "during a change of the shard list: the shards before it, in their order, as --redis listed them"
                        + " (with redis-cutover; docs/redis.md#changing-the-shard-list)");
        s.put(
                "redis-cutover",
                "when the shard list in --redis takes over from redis-previous: an epoch second or an ISO-8601"
                        + " instant");
        s.put(
                "redis-timeout",
                "how long a shard may take to answer before the batch is answered 503 (default "
                        + Durations.format(RedisOptions.DEFAULT_TIMEOUT) + ")");
        s.put(
                "redis-time-bucket-records",
                "claims an event-time bucket is planned to hold; more are counted in"
                        + " dedup_redis_overfull_total (default " + RedisOptions.DEFAULT_TIME_BUCKET_RECORDS + ")");
        s.put("redis-prefix", "first bytes of every Redis key (default " + RedisOptions.DEFAULT_KEY_PREFIX + ")");
        s.put(
                "redis-max-in-flight",
                "script calls queued per shard before 503 (default " + RedisOptions.DEFAULT_MAX_IN_FLIGHT + ")");
        s.put(
                "redis-ca-file",
                "PEM file of the certificate authorities trusted for rediss:// shards (default: the"
                        + " JVM's trust store)");
        s.put(
                "redis-wait-replicas",
                "replicas that must acknowledge each script call (WAIT) before answering;"
                        + " 0 does not wait (default " + RedisOptions.DEFAULT_WAIT_REPLICAS + ")");
        s.put(
                "redis-adopt-empty-shards",
                "stamp shards without a topology record (lost their data, or added undeclared) instead of refusing"
                        + " to start, accepting that their claims are gone (true/false; the flag alone means true;"
                        + " default false)");
        s.put(
                "redis-eviction-check",
                "require: refuse to start unless every Redis server says maxmemory-policy noeviction (CONFIG GET,"
                        + " else INFO memory); warn: start anyway and log each server that may evict or does not say"
                        + " (default " + EvictionCheck.DEFAULT + ")");
        s.put(
                "near-cache-size",
                "ids the near-cache in front of Redis keeps; 0 turns it off (default "
                        + NearCacheOptions.DEFAULT_MAX_ENTRIES + ")");
        s.put(
                "window",
                "how long a claim is remembered (default " + Durations.format(WindowOptions.DEFAULT_WINDOW) + ")");
        s.put("namespace-window", "window of one namespace, ns=duration (repeatable)");
        s.put(
                "namespace-window-mode",
                "fixed (a claim ends a window after it is made) or sliding (every retry or duplicate answer extends"
                        + " it to a window from then), ns=mode (repeatable; default " + WindowMode.DEFAULT + ")");
        s.put(
                "namespace-event-rate",
                "file one namespace's claims by the items' event time (\"ts\"), ns=peak ids"
                        + " per second over all workers (repeatable; sizes the time buckets)");
        s.put("max-batch", "most items per request (default " + HttpOptions.DEFAULT_MAX_BATCH + ")");
        s.put("max-body", "largest request body (default " + Sizes.format(HttpOptions.DEFAULT_MAX_BODY) + ")");
        s.put(
                "idle-timeout",
                "close connections idle this long (default " + Durations.format(HttpOptions.DEFAULT_IDLE_TIMEOUT)
                        + ")");
        s.put("event-loops", "HTTP event loops (default: one per core)");
        s.put(
                "shutdown-grace",
                "how long SIGTERM waits for requests in flight (default "
                        + Durations.format(HttpOptions.DEFAULT_SHUTDOWN_GRACE) + ")");
        s.put("token", "bearer token required on every endpoint but /health/live (at least 16 characters)");
        s.put("insecure-bind", "allow a non-loopback --host without --token (true/false; the flag alone means true)");
        s.put("config", "a properties file with any of these settings");
        return s;
    }

    /** Loads the options; {@code args} are the command-line arguments (without {@code --help}). */
    public static AgentOptions load(List<String> args, Map<String, String> env) {
        ConfigLoader loader = new ConfigLoader();
        Map<String, String> flags = loader.parseFlags(args);
        String file = flags.containsKey("config") ? flags.get("config") : env.get("DEDUP_CONFIG");
        if (file != null) {
            loader.readFile(Path.of(file));
        }
        env.forEach((name, value) -> {
            if (name.startsWith("DEDUP_") && !name.equals("DEDUP_CONFIG")) {
                loader.putEnv(name, value);
            }
        });
        flags.forEach((key, value) -> {
            if (namespaceSetting(key) != null) {
                loader.putNamespaceList(namespaceSetting(key), value, "--" + key);
            } else if (!key.equals("config")) {
                loader.put(key, value, "--" + key);
            }
        });
        return loader.build();
    }

    private Map<String, String> parseFlags(List<String> args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new ConfigException("'" + arg + "': expected a setting such as --port 7070 (see --help)");
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (BOOLEAN_FLAGS.contains(name)
                    && (i + 1 == args.size() || args.get(i + 1).startsWith("--"))) {
                value = "true";
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new ConfigException("--" + name + ": needs a value");
            }
            if (!SETTINGS.containsKey(name)) {
                throw new ConfigException("--" + name + ": unknown setting (see --help)");
            }
            if (namespaceSetting(name) != null) {
                String earlier = flags.get(name);
                flags.put(name, earlier == null ? value : earlier + "," + value);
            } else {
                flags.put(name, value);
            }
        }
        return flags;
    }

    private void readFile(Path path) {
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            props.load(r);
        } catch (IOException e) {
            throw new ConfigException("config: cannot read " + path + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config: " + path + " is not a properties file: " + e.getMessage());
        }
        for (String key : new TreeSet<>(props.stringPropertyNames())) {
            String value = props.getProperty(key).trim();
            String origin = key + " (in " + path + ")";
            if (isNamespaceKey(key)) {
                put(key, value, origin);
            } else if (SETTINGS.containsKey(key) && !key.equals("config") && namespaceSetting(key) == null) {
                put(key, value, origin);
            } else {
                throw new ConfigException(origin + ": unknown setting");
            }
        }
    }

    private void putEnv(String name, String value) {
        if (namespaceSetting(name) != null) {
            putNamespaceList(namespaceSetting(name), value, name);
            return;
        }
        String key = name.substring("DEDUP_".length()).toLowerCase(Locale.ROOT).replace('_', '-');
        if (!SETTINGS.containsKey(key) || namespaceSetting(key) != null) {
            throw new ConfigException(name + ": unknown setting (see --help for the DEDUP_* variables)");
        }
        put(key, value, name);
    }

    private void putNamespaceList(NamespaceSetting setting, String list, String origin) {
        for (String entry : list.split(",")) {
            int eq = entry.indexOf('=');
            if (eq <= 0 || entry.substring(0, eq).isBlank()) {
                throw new ConfigException(origin + ": '" + entry + "' is not " + setting.form());
            }
            put(
                    NAMESPACE_PREFIX + entry.substring(0, eq).trim() + setting.suffix(),
                    entry.substring(eq + 1).trim(),
                    origin);
        }
    }

    private void put(String key, String value, String origin) {
        values.put(key, value);
        origins.put(key, origin);
    }

    private AgentOptions build() {
        HttpOptions http = new HttpOptions(
                get("host", Function.identity(), HttpOptions.DEFAULT_HOST),
                get("port", v -> integer("port", v), HttpOptions.DEFAULT_PORT),
                get("max-batch", v -> integer("max-batch", v), HttpOptions.DEFAULT_MAX_BATCH),
                get("max-body", v -> Sizes.parse(origin("max-body"), v), HttpOptions.DEFAULT_MAX_BODY),
                get("idle-timeout", v -> Durations.parse(origin("idle-timeout"), v), HttpOptions.DEFAULT_IDLE_TIMEOUT),
                get("event-loops", v -> integer("event-loops", v), HttpOptions.defaultEventLoops()),
                get(
                        "shutdown-grace",
                        v -> Durations.parse(origin("shutdown-grace"), v),
                        HttpOptions.DEFAULT_SHUTDOWN_GRACE),
                get("token", v -> v.isEmpty() ? null : v, null),
                get("insecure-bind", v -> bool("insecure-bind", v), false),
                ops());
        EmbeddedStoreOptions embedded = new EmbeddedStoreOptions(
                get("data-dir", Path::of, EmbeddedStoreOptions.DEFAULT_DATA_DIR),
                get("embedded-slots", v -> longValue("embedded-slots", v), EmbeddedStoreOptions.DEFAULT_SLOTS),
                get("embedded-ways", v -> integer("embedded-ways", v), EmbeddedStoreOptions.DEFAULT_WAYS));
        Map<String, Duration> perNamespace = new TreeMap<>();
        Map<String, Integer> eventRates = new TreeMap<>();
        Map<String, WindowMode> windowModes = new TreeMap<>();
        values.forEach((key, value) -> {
            if (namespaceOf(key, WINDOW_SUFFIX) != null) {
                perNamespace.put(namespaceOf(key, WINDOW_SUFFIX), Durations.parse(origins.get(key), value));
            } else if (namespaceOf(key, EVENT_RATE_SUFFIX) != null) {
                eventRates.put(namespaceOf(key, EVENT_RATE_SUFFIX), integerAt(origins.get(key), value));
            } else if (namespaceOf(key, WINDOW_MODE_SUFFIX) != null) {
                windowModes.put(namespaceOf(key, WINDOW_MODE_SUFFIX), WindowMode.parse(origins.get(key), value));
            }
        });
        WindowOptions windows = new WindowOptions(
                get("window", v -> Durations.parse(origin("window"), v), WindowOptions.DEFAULT_WINDOW),
                perNamespace,
                eventRates,
                windowModes);
        String redisList = get("redis", Function.identity(), "");
        List<String> uris = shardUris(redisList);
        RedisOptions redis = new RedisOptions(
                uris,
                get("redis-timeout", v -> Durations.parse(origin("redis-timeout"), v), RedisOptions.DEFAULT_TIMEOUT),
                get(
                        "redis-time-bucket-records",
                        v -> integer("redis-time-bucket-records", v),
                        RedisOptions.DEFAULT_TIME_BUCKET_RECORDS),
                get("redis-prefix", Function.identity(), RedisOptions.DEFAULT_KEY_PREFIX),
                get("redis-max-in-flight", v -> integer("redis-max-in-flight", v), RedisOptions.DEFAULT_MAX_IN_FLIGHT),
                get("redis-ca-file", v -> v.isEmpty() ? null : Path.of(v), null),
                get("redis-wait-replicas", v -> integer("redis-wait-replicas", v), RedisOptions.DEFAULT_WAIT_REPLICAS),
                get("redis-adopt-empty-shards", v -> bool("redis-adopt-empty-shards", v), false),
                get(
                        "redis-eviction-check",
                        v -> EvictionCheck.parse(origin("redis-eviction-check"), v),
                        EvictionCheck.DEFAULT),
                transition(),
                get(
                        "redis-cluster-groups",
                        v -> integer("redis-cluster-groups", v),
                        RedisOptions.DEFAULT_CLUSTER_GROUPS));
        NearCacheOptions nearCache = new NearCacheOptions(
                get("near-cache-size", v -> longValue("near-cache-size", v), NearCacheOptions.DEFAULT_MAX_ENTRIES));
        return new AgentOptions(http, embedded, windows, redis, nearCache);
    }

    /** {@code ops-port}, with {@code ops-host}; null when no ops-port is given. */
    private OpsOptions ops() {
        Integer port = get("ops-port", v -> integer("ops-port", v), null);
        String host = get("ops-host", Function.identity(), null);
        if (port == null) {
            if (host != null) {
                throw new ConfigException(origin("ops-host") + " needs ops-port: it is the address of that port");
            }
            return null;
        }
        return new OpsOptions(host == null ? OpsOptions.DEFAULT_HOST : host, port);
    }

    /** {@code redis-previous} and {@code redis-cutover}, both or neither. */
    private ShardTransition transition() {
        List<String> previous = shardUris(get("redis-previous", Function.identity(), ""));
        String cutover = get("redis-cutover", Function.identity(), "");
        if (previous.isEmpty() && cutover.isEmpty()) {
            return null;
        }
        if (previous.isEmpty() || cutover.isEmpty()) {
            throw new ConfigException((previous.isEmpty() ? origin("redis-cutover") : origin("redis-previous"))
                    + " needs " + (previous.isEmpty() ? "redis-previous" : "redis-cutover")
                    + ": a change of the shard list names the shards before it and when the new list takes over");
        }
        return new ShardTransition(previous, ShardTransition.parseCutover(origin("redis-cutover"), cutover));
    }

    /**
     * Splits the shard list on commas, except the commas between the sentinels of one
     * {@code redis-sentinel://s1:26379,s2:26379#master} URI or the nodes of one
     * {@code redis-cluster://n1:7000,n2:7000} URI: a piece without a scheme continues the last URI.
     */
    static List<String> shardUris(String list) {
        List<String> uris = new java.util.ArrayList<>();
        for (String piece : list.split(",")) {
            String p = piece.trim();
            if (p.isEmpty()) {
                continue;
            }
            if (!p.contains("://")
                    && !uris.isEmpty()
                    && (uris.get(uris.size() - 1).startsWith("redis-sentinel://")
                            || RedisOptions.isCluster(uris.get(uris.size() - 1)))) {
                uris.set(uris.size() - 1, uris.get(uris.size() - 1) + "," + p);
            } else {
                uris.add(p);
            }
        }
        return List.copyOf(uris);
    }

    private <T> T get(String key, Function<String, T> parse, T fallback) {
        String value = values.get(key);
        return value == null ? fallback : parse.apply(value.trim());
    }

    private String origin(String key) {
        return origins.getOrDefault(key, key);
    }

    private int integer(String key, String value) {
        long n = longValue(key, value);
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw new ConfigException(origin(key) + ": '" + value + "' is out of range");
        }
        return (int) n;
    }

    private boolean bool(String key, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new ConfigException(origin(key) + ": '" + value + "' is not true or false");
        };
    }

    /** A whole number whose origin is already spelled out (per-namespace settings). */
    private static int integerAt(String origin, String value) {
        try {
            return Integer.parseInt(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new ConfigException(origin + ": '" + value + "' is not a whole number");
        }
    }

    private long longValue(String key, String value) {
        try {
            return Long.parseLong(value.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new ConfigException(origin(key) + ": '" + value + "' is not a whole number");
        }
    }

    /** The text of {@code --help}. */
    public static String help() {
        StringBuilder sb = new StringBuilder("""
                Usage: java -jar dedup-agent.jar [--setting value ...]

                Answers new / retry / duplicate for batches of (id, owner) on http://HOST:PORT/v1/claims.
                Each setting is also DEDUP_<NAME> in the environment and <name>=value in a --config file;
                a flag beats the environment, which beats the file, which beats the default.

                """);
        SETTINGS.forEach((name, text) -> sb.append(String.format("  --%-18s %s%n", name, text)));
        return sb.toString();
    }
}
