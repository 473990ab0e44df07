package dev.dedup.agent.config;

import dev.dedup.agent.config.value.Bounds;
import dev.dedup.agent.config.value.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The Redis store: its shards and how the agent talks to them. How claims are laid out is not a setting: the
 * fingerprint tables size themselves as claims arrive.
 *
 * @param uris        one URI per shard ({@code redis://host:port}, {@code rediss://} for TLS, credentials in
 *                    the URI, or {@code redis-sentinel://s1:26379,s2:26379#master} for a Sentinel-managed
 *                    primary, followed to its replica on failover, {@code rediss-sentinel://} for TLS to the
 *                    sentinels and the primary; the URI's credentials log in to both); empty means the embedded
 *                    store
 * @param timeout     how long one script call may take before the batch is answered 503
 * @param keyPrefix   first bytes of every key, and of the release channel's name
 * @param maxInFlight script calls queued per shard before new batches are answered 503
 * @param caFile      PEM file of the certificate authorities trusted for {@code rediss://} shards, or null for
 *                    the JVM's default trust store
 * @param waitReplicas replicas that must acknowledge a script call's writes ({@code WAIT}) before its batch
 *                    is answered; a call they do not acknowledge within 3/4 of {@code timeout} is answered 503.
 *                    0 (the default) answers as soon as the primary has written
 * @param adoptEmptyShards stamp shards that hold no topology record among shards that do (they lost their
 *                    data, or were added undeclared) instead of refusing to start: accepts that their claims
 *                    are gone; meant for one start after such a loss
 * @param evictionCheck what the start does about a server whose {@code maxmemory-policy} may evict claims, or
 *                    cannot be read: refuse ({@link EvictionCheck#REQUIRE}) or warn
 * @param transition  a declared change from a previous shard list to {@code uris}, or null (docs/redis.md)
 * @param clusterGroups with a Redis Cluster ({@code redis-cluster://} or {@code rediss-cluster://}, the only
 *                    URI): the groups ids are spread over, each one hash slot of its own, in place of shards;
 *                    within {@link #CLUSTER_GROUPS_BOUNDS}
 */
public record RedisOptions(
        List<String> uris,
        Duration timeout,
        String keyPrefix,
        int maxInFlight,
        Path caFile,
        int waitReplicas,
        boolean adoptEmptyShards,
        EvictionCheck evictionCheck,
        ShardTransition transition,
        int clusterGroups) {

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);
    public static final String DEFAULT_KEY_PREFIX = "dd";
    public static final int DEFAULT_MAX_IN_FLIGHT = 1024;
    public static final int DEFAULT_WAIT_REPLICAS = 0;
    /** Groups (one hash slot each) of a Redis Cluster: see docs/redis.md#redis-cluster for the measurement. */
    public static final int DEFAULT_CLUSTER_GROUPS = 32;

    public static final Bounds<Duration> TIMEOUT_BOUNDS = Bounds.durationsFrom(Duration.ofMillis(10));
    public static final Bounds<Integer> MAX_IN_FLIGHT_BOUNDS = Bounds.intsFrom(1);
    public static final Bounds<Integer> WAIT_REPLICAS_BOUNDS = Bounds.ints(0, 16);
    /** Each group is one hash slot of the Cluster's 16,384. */
    public static final Bounds<Integer> CLUSTER_GROUPS_BOUNDS =
            Bounds.ints(1, 1024).powersOfTwo();
    /** Longest key prefix: it starts every key. */
    public static final int MAX_KEY_PREFIX_LENGTH = 32;

    public static final String CLUSTER_SCHEME = "redis-cluster://";
    public static final String TLS_CLUSTER_SCHEME = "rediss-cluster://";
    public static final String SENTINEL_SCHEME = "redis-sentinel://";
    public static final String TLS_SENTINEL_SCHEME = "rediss-sentinel://";
    /** What a shard may be, for messages. */
    static final String SHARD_FORMS = "each shard is redis://host:port, rediss://host:port (TLS) or"
            + " redis-sentinel://s1:port,s2:port#master (rediss-sentinel:// for TLS)";

    public RedisOptions {
        uris = List.copyOf(uris);
        ConfigException.require(evictionCheck != null, "redis-eviction-check", null, "write require or warn");
        for (String uri : uris) {
            ConfigException.require(
                    isShard(uri) || isCluster(uri),
                    "redis",
                    redact(uri),
                    SHARD_FORMS + "; or one redis-cluster://host:port,host:port (rediss-cluster:// for TLS) for a"
                            + " Redis Cluster");
            ConfigException.require(
                    !isCluster(uri) || uris.size() == 1,
                    "redis",
                    redacted(uris),
                    "a redis-cluster:// URI is the whole Redis tier: it cannot be listed with other shards or"
                            + " clusters (name several of its nodes inside it: redis-cluster://h1:port,h2:port)");
        }
        boolean cluster = uris.size() == 1 && isCluster(uris.get(0));
        CLUSTER_GROUPS_BOUNDS.check("redis-cluster-groups", clusterGroups);
        ConfigException.require(
                !cluster || transition == null,
                "redis-previous",
                transition == null ? null : redacted(transition.previous()),
                "a Redis Cluster moves its slots itself (redis-cli --cluster reshard): there is no shard list to"
                        + " change; drop redis-previous and redis-cutover");
        TIMEOUT_BOUNDS.check("redis-timeout", timeout);
        ConfigException.require(
                keyPrefix != null
                        && !keyPrefix.isEmpty()
                        && keyPrefix.length() <= MAX_KEY_PREFIX_LENGTH
                        && keyPrefix.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != '{' && c != '}'),
                "redis-prefix",
                keyPrefix,
                "use 1 to " + MAX_KEY_PREFIX_LENGTH + " printable characters other than { and }");
        MAX_IN_FLIGHT_BOUNDS.check("redis-max-in-flight", maxInFlight);
        ConfigException.require(
                caFile == null || Files.isRegularFile(caFile) && Files.isReadable(caFile),
                "redis-ca-file",
                caFile,
                "not a readable file");
        WAIT_REPLICAS_BOUNDS.check("redis-wait-replicas", waitReplicas);
        ConfigException.require(
                transition == null || !uris.isEmpty(),
                "redis-previous",
                transition == null ? null : redacted(transition.previous()),
                "needs the current shard list in redis");
        ConfigException.require(
                transition == null || !transition.previous().equals(uris),
                "redis-previous",
                transition == null ? null : redacted(transition.previous()),
                "is the same list as redis: nothing changes, so drop redis-previous and redis-cutover");
    }

    /** No Redis: the embedded store. */
    public static RedisOptions none() {
        return builder(List.of()).build();
    }

    /** Options for the shards {@code uris}, every other setting at its default until set. */
    public static Builder builder(List<String> uris) {
        return new Builder(uris);
    }

    /** A builder holding these options, to change some. */
    public Builder toBuilder() {
        return new Builder(uris)
                .timeout(timeout)
                .keyPrefix(keyPrefix)
                .maxInFlight(maxInFlight)
                .caFile(caFile)
                .waitReplicas(waitReplicas)
                .adoptEmptyShards(adoptEmptyShards)
                .evictionCheck(evictionCheck)
                .transition(transition)
                .clusterGroups(clusterGroups);
    }

    /** Builds {@link RedisOptions}; {@link #build} checks every value. */
    public static final class Builder {
        private List<String> uris;
        private Duration timeout = DEFAULT_TIMEOUT;
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private int maxInFlight = DEFAULT_MAX_IN_FLIGHT;
        private Path caFile;
        private int waitReplicas = DEFAULT_WAIT_REPLICAS;
        private boolean adoptEmptyShards;
        private EvictionCheck evictionCheck = EvictionCheck.DEFAULT;
        private ShardTransition transition;
        private int clusterGroups = DEFAULT_CLUSTER_GROUPS;

        private Builder(List<String> uris) {
            this.uris = uris;
        }

        public Builder uris(List<String> shards) {
            this.uris = shards;
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = timeout;
            return this;
        }

        public Builder keyPrefix(String prefix) {
            this.keyPrefix = prefix;
            return this;
        }

        public Builder maxInFlight(int calls) {
            this.maxInFlight = calls;
            return this;
        }

        public Builder caFile(Path file) {
            this.caFile = file;
            return this;
        }

        public Builder waitReplicas(int replicas) {
            this.waitReplicas = replicas;
            return this;
        }

        public Builder adoptEmptyShards(boolean adopt) {
            this.adoptEmptyShards = adopt;
            return this;
        }

        public Builder evictionCheck(EvictionCheck check) {
            this.evictionCheck = check;
            return this;
        }

        public Builder transition(ShardTransition transition) {
            this.transition = transition;
            return this;
        }

        public Builder clusterGroups(int groups) {
            this.clusterGroups = groups;
            return this;
        }

        public RedisOptions build() {
            return new RedisOptions(
                    uris,
                    timeout,
                    keyPrefix,
                    maxInFlight,
                    caFile,
                    waitReplicas,
                    adoptEmptyShards,
                    evictionCheck,
                    transition,
                    clusterGroups);
        }
    }

    /** Whether {@code uri} names one shard: a server, or a primary its sentinels name. */
    static boolean isShard(String uri) {
        return uri.startsWith("redis://") || uri.startsWith("rediss://") || isSentinel(uri);
    }

    /** Whether {@code uri} names a primary through its sentinels ({@code redis-sentinel://}, {@code rediss-sentinel://}). */
    public static boolean isSentinel(String uri) {
        return uri.startsWith(SENTINEL_SCHEME) || uri.startsWith(TLS_SENTINEL_SCHEME);
    }

    /** Whether {@code uri} names a Redis Cluster (by some of its nodes) rather than one shard. */
    public static boolean isCluster(String uri) {
        return uri.startsWith(CLUSTER_SCHEME) || uri.startsWith(TLS_CLUSTER_SCHEME);
    }

    /** Whether the Redis tier is one Redis Cluster, whose groups take the place of shards. */
    public boolean cluster() {
        return uris.size() == 1 && isCluster(uris.get(0));
    }

    /**
     * Every server the agent connects to: the current shards in their order, then those of the previous list
     * that are not among them.
     */
    public List<String> servers() {
        if (transition == null) {
            return uris;
        }
        List<String> all = new java.util.ArrayList<>(uris);
        transition.previous().stream().filter(u -> !uris.contains(u)).forEach(all::add);
        return List.copyOf(all);
    }

    public boolean enabled() {
        return !uris.isEmpty();
    }

    /**
     * A URI fit for logs and stats: the password, if any, replaced by {@code ***}. Whatever stands before the last
     * {@code @} after the scheme (or, in text without a scheme, before the last {@code @}) is taken for credentials:
     * a malformed URI keeps its secret too.
     */
    public static String redact(String uri) {
        int scheme = uri.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int at = uri.lastIndexOf('@');
        if (at < start) {
            return uri;
        }
        String userInfo = uri.substring(start, at);
        int colon = userInfo.indexOf(':');
        String user = colon < 0 ? "" : userInfo.substring(0, colon);
        return uri.substring(0, start) + (user.isEmpty() ? "" : user + ":") + "***" + uri.substring(at);
    }

    /** Each of {@code uris} {@linkplain #redact redacted}. */
    public static List<String> redacted(List<String> uris) {
        return uris.stream().map(RedisOptions::redact).toList();
    }

    /**
     * {@code text} (a message that may quote {@code uri}, e.g. a URI parser's) with {@code uri}'s credentials
     * replaced by {@code ***} wherever they appear, as written or percent-decoded.
     */
    public static String scrub(String text, String uri) {
        if (text == null) {
            return null;
        }
        String out = text.replace(uri, redact(uri));
        int scheme = uri.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int at = uri.lastIndexOf('@');
        if (at <= start) {
            return out;
        }
        String userInfo = uri.substring(start, at);
        String password = userInfo.substring(userInfo.indexOf(':') + 1);
        if (password.isEmpty()) {
            return out;
        }
        out = out.replace(password, "***");
        try {
            String decoded = java.net.URLDecoder.decode(password, java.nio.charset.StandardCharsets.UTF_8);
            return decoded.isEmpty() ? out : out.replace(decoded, "***");
        } catch (IllegalArgumentException e) {
            return out; // not valid percent-encoding: the password as written is gone already
        }
    }
}
