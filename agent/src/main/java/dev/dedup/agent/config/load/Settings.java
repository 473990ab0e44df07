package dev.dedup.agent.config.load;

import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.EvictionCheck;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.NearCacheOptions;
import dev.dedup.agent.config.OpsOptions;
import dev.dedup.agent.config.RedisOptions;
import dev.dedup.agent.config.WindowMode;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.config.value.Durations;
import dev.dedup.agent.config.value.Sizes;
import dev.dedup.agent.config.value.Tokens;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Every setting of the agent, each declared once: {@link ConfigLoader} reads them from flags, the
 * environment and a file; {@link #help} prints them for {@code --help}; {@link #markdownTable} is the table
 * of {@code docs/configuration.md} (a test holds the page to it). The order is the one both list them in.
 */
public final class Settings {

    static final String NAMESPACE_PREFIX = "namespace.";
    static final String WINDOW_SUFFIX = ".window";
    static final String EVENT_RATE_SUFFIX = ".event-rate";
    static final String WINDOW_MODE_SUFFIX = ".window-mode";

    static final List<Setting> ALL = List.of(
            Setting.of(
                    "host",
                    code(HttpOptions.DEFAULT_HOST),
                    "Address to bind. Any address that is not loopback needs `--token` or `--insecure-bind`, else the"
                            + " start stops.",
                    (d, v) -> d.httpOptions.host(v.text())),
            Setting.of(
                    "port",
                    code(HttpOptions.DEFAULT_PORT),
                    HttpOptions.PORT_BOUNDS,
                    "Port to bind, {bounds}; `0` picks a free one.",
                    (d, port) -> d.httpOptions.port(port)),
            Setting.of(
                    "ops-port",
                    "none: the operations endpoints are on `--port` alone",
                    HttpOptions.PORT_BOUNDS,
                    "A port of its own ({bounds}) for `/health/live`, `/health/ready`, `/metrics` and `/v1/stats` (besides "
                            + "`--port`, where they stay); anything else is 404 there. Binding it to any address needs no "
                            + "`--token`, so that the kubelet's probes and Prometheus reach it while the claim API stays on "
                            + "loopback; with a token (a read token will do), `/metrics` and `/v1/stats` require it there too, "
                            + "the probes never. Without any token, on an address that is not loopback, `/v1/stats` (which "
                            + "names files, Redis hosts and users) is refused there (403). Must differ from `--port`.",
                    (d, port) -> d.opsPort = port),
            Setting.of(
                    "ops-host",
                    code(OpsOptions.DEFAULT_HOST) + " with `--ops-port`",
                    "Address of `--ops-port`; given without it, the start stops.",
                    (d, v) -> d.opsHost = v),
            Setting.of(
                    "data-dir",
                    code("./" + EmbeddedStoreOptions.DEFAULT_DATA_DIR),
                    "Directory of the embedded store: its file `claims.slots`, the lock `agent.lock` (one agent "
                            + "per directory) and `ranges.log`. Created 0700 if missing, its files 0600. The start stops "
                            + "when it is a symbolic link, belongs to a user other than the agent's or root, or may be "
                            + "written by every user or by a group other than the agent's ([the "
                            + "rule](embedded-store.md#the-data-directory)).",
                    (d, v) -> d.dataDir = Path.of(v.text())),
            Setting.of(
                    "embedded-slots",
                    code(EmbeddedStoreOptions.DEFAULT_SLOTS),
                    EmbeddedStoreOptions.SLOTS_BOUNDS,
                    "Capacity of the embedded store in ids, 16 bytes each (the default file is 256 MiB); {bounds},"
                            + " rounded up to whole sets. Fixed when the file is created: opening it with another value "
                            + "fails, naming the value to use. See [embedded-store.md](embedded-store.md#sizing).",
                    (d, slots) -> d.embeddedSlots = slots),
            Setting.of(
                    "embedded-ways",
                    code(EmbeddedStoreOptions.DEFAULT_WAYS),
                    EmbeddedStoreOptions.WAYS_BOUNDS,
                    "Slots per set of the embedded store: {bounds}. Fixed when the file is created.",
                    (d, ways) -> d.embeddedWays = ways),
            Setting.of(
                    "redis",
                    "none: the embedded store",
                    "Redis shards, comma-separated: `redis://[user:password@]host:port`, `rediss://...` for TLS, or "
                            + "`redis-sentinel://[user:password@]s1:26379,s2:26379,s3:26379#name` for a Sentinel-managed "
                            + "primary the agent follows on failover (`rediss-sentinel://` for TLS; the credentials log in "
                            + "to the sentinels and the primary). The order matters: ids are routed by position. Or one Redis Cluster, "
                            + "`redis-cluster://[user:password@]host:port[,host:port...]` (`rediss-cluster://` for TLS), which "
                            + "is then the whole tier: it cannot be listed with shards. See [redis.md](redis.md).",
                    (d, v) -> d.redis = shardUris(v.text())),
            Setting.of(
                    "redis-previous",
                    "none",
                    "During a change of the shard list: the shards before it, comma-separated, in their order and "
                            + "written as `--redis` wrote them then; with `--redis-cutover`. See "
                            + "[redis.md](redis.md#changing-the-shard-list).",
                    (d, v) -> d.redisPrevious = v),
            Setting.of(
                    "redis-cutover",
                    "none",
                    "When `--redis` takes over from `--redis-previous`: an epoch second (`1767225600`) or an ISO-8601"
                            + " instant (`YYYY-MM-DDThh:mm:ssZ`). Claims without event time are made in the previous list "
                            + "before it and in `--redis` from it; an event-time claim goes to the list in force at its event "
                            + "second.",
                    (d, v) -> d.redisCutover = v),
            Setting.of(
                    "redis-cluster-groups",
                    code(RedisOptions.DEFAULT_CLUSTER_GROUPS),
                    RedisOptions.CLUSTER_GROUPS_BOUNDS,
                    "With a Redis Cluster: the groups ids are spread over in place of shards, each one hash slot (so "
                            + "one script call's keys share a slot), {bounds}. Every agent of a deployment must use "
                            + "the same. See [redis.md](redis.md#redis-cluster).",
                    (d, groups) -> d.redisOptions.clusterGroups(groups)),
            Setting.of(
                    "redis-timeout",
                    code(Durations.format(RedisOptions.DEFAULT_TIMEOUT)),
                    RedisOptions.TIMEOUT_BOUNDS,
                    "How long a shard may take to answer (and to connect) before the batch is answered 503; {bounds}.",
                    (d, timeout) -> d.redisOptions.timeout(timeout)),
            Setting.of(
                    "redis-prefix",
                    code(RedisOptions.DEFAULT_KEY_PREFIX),
                    "First bytes of every key and of the release channel (`<prefix>:released`): 1 to "
                            + RedisOptions.MAX_KEY_PREFIX_LENGTH + " printable characters other than `{` and `}`.",
                    (d, v) -> d.redisOptions.keyPrefix(v.text())),
            Setting.of(
                    "redis-max-in-flight",
                    code(RedisOptions.DEFAULT_MAX_IN_FLIGHT),
                    RedisOptions.MAX_IN_FLIGHT_BOUNDS,
                    "Script calls queued per shard, {bounds}; past it batches are answered 503 "
                            + "(`dedup_store_errors_total{kind=\"overloaded\"}`).",
                    (d, calls) -> d.redisOptions.maxInFlight(calls)),
            Setting.of(
                    "redis-ca-file",
                    "none: the JVM's trust store",
                    "PEM file of the certificate authorities trusted for `rediss://` shards. Must be a readable file.",
                    (d, v) -> d.redisOptions.caFile(v.textOrNull() == null ? null : Path.of(v.text()))),
            Setting.of(
                    "redis-wait-replicas",
                    code(RedisOptions.DEFAULT_WAIT_REPLICAS),
                    RedisOptions.WAIT_REPLICAS_BOUNDS,
                    "Replicas that must acknowledge each script call (`WAIT`, within 3/4 of `--redis-timeout`) before"
                            + " its batch is answered, {bounds}; else 503. 0 answers once the primary has written. See "
                            + "[guarantees.md](guarantees.md).",
                    (d, replicas) -> d.redisOptions.waitReplicas(replicas)),
            Setting.flag(
                    "redis-adopt-empty-shards",
                    "Stamp shards that hold no topology record while the others do (they lost their data, or were "
                            + "added without a declared change) instead of refusing to start, accepting that their claims are "
                            + "gone; `true`/`false`, the flag alone means `true`. For one start after such a loss; see "
                            + "[redis.md](redis.md#a-shard-that-lost-its-data).",
                    (d, v) -> d.redisOptions.adoptEmptyShards(v.bool())),
            Setting.of(
                    "redis-eviction-check",
                    code(EvictionCheck.DEFAULT.name().toLowerCase(Locale.ROOT)),
                    "What the start does about Redis servers that may evict claims. `require`: start only when every "
                            + "server (each shard, the previous list's during a change of it, every master of a Cluster) says "
                            + "`maxmemory-policy noeviction`, read with `CONFIG GET` or, where a managed service refuses "
                            + "`CONFIG`, from `INFO memory`; else exit 2 with one line naming the server. `warn`: start anyway,"
                            + " logging each server that may evict or does not say. An evicted claim turns its message's later "
                            + "copies into `new` with no error anywhere, hence the default; see "
                            + "[managed-redis.md](managed-redis.md#what-the-agent-checks).",
                    (d, v) -> d.redisOptions.evictionCheck(EvictionCheck.parse(v.origin(), v.text()))),
            Setting.of(
                    "near-cache-size",
                    code(NearCacheOptions.DEFAULT_MAX_ENTRIES),
                    NearCacheOptions.SIZE_BOUNDS,
                    "Ids the near-cache in front of Redis keeps, 16 bytes of heap each, taken in pages of 16,384 ids"
                            + " as claims first fall into them (all of it within minutes at full rate): {bounds}."
                            + " Unused with the embedded store.",
                    (d, entries) -> d.nearCacheSize = entries),
            Setting.of(
                    "window",
                    code(Durations.format(WindowOptions.DEFAULT_WINDOW)),
                    WindowOptions.WINDOW_BOUNDS,
                    "How long a claim is remembered: {bounds}.",
                    (d, window) -> d.window = window),
            Setting.perNamespace(
                    "namespace-window",
                    "DEDUP_NAMESPACE_WINDOWS",
                    WINDOW_SUFFIX,
                    "ns=duration, e.g. clicks=48h",
                    "the `--window`",
                    WindowOptions.WINDOW_BOUNDS,
                    "The window of one namespace, `ns=duration`, {bounds} (see below).",
                    (d, ns, window) -> d.namespaceWindows.put(ns, window)),
            Setting.perNamespace(
                    "namespace-window-mode",
                    "DEDUP_NAMESPACE_WINDOW_MODES",
                    WINDOW_MODE_SUFFIX,
                    "ns=fixed or ns=sliding, e.g. clicks=sliding",
                    "none: every window is fixed",
                    "`fixed` (a claim ends a window after it is made) or `sliding` (every `retry` or `duplicate` "
                            + "answer extends it to a window from then), `ns=mode` (see below).",
                    (d, ns, v) -> d.windowModes.put(ns, WindowMode.parse(v.origin(), v.text()))),
            Setting.of(
                    "max-namespaces",
                    code(WindowOptions.DEFAULT_MAX_NAMESPACES),
                    WindowOptions.MAX_NAMESPACES_BOUNDS,
                    "Most namespaces, besides those the namespace settings name, that requests may name while the agent "
                            + "runs ({bounds}): each keeps state until the agent stops (an event clock; on Redis a table "
                            + "per shard, swept, with its meters). A request that names one more is refused (400, "
                            + "nothing claimed) and counted in `dedup_errors_total{kind=\"bad_request\"}`; `/v1/stats` "
                            + "shows how many are in use. A namespace is a stream of messages, not a run or a day: name "
                            + "runs in the ids instead.",
                    (d, max) -> d.maxNamespaces = max),
            Setting.perNamespace(
                    "namespace-event-rate",
                    "DEDUP_NAMESPACE_EVENT_RATES",
                    EVENT_RATE_SUFFIX,
                    "ns=ids per second, e.g. clicks=33334",
                    "none: no namespace is filed in time buckets",
                    WindowOptions.EVENT_RATE_BOUNDS,
                    "Files one namespace's claims in per-second time buckets on Redis (Tapjoy's layout; `ts` then "
                            + "required on every item), `ns=ids per second`: its peak over all workers, {bounds} "
                            + "(see below). Not needed for event times: any item with `ts` counts its window on its "
                            + "namespace's event clock.",
                    (d, ns, rate) -> d.eventRates.put(ns, rate)),
            Setting.of(
                    "max-batch",
                    code(HttpOptions.DEFAULT_MAX_BATCH),
                    HttpOptions.MAX_BATCH_BOUNDS,
                    "Most items per request, {bounds} (413 above).",
                    (d, items) -> d.httpOptions.maxBatch(items)),
            Setting.of(
                    "max-body",
                    code(Sizes.format(HttpOptions.DEFAULT_MAX_BODY)),
                    HttpOptions.MAX_BODY_BOUNDS,
                    "Largest request body, {bounds} (413 above). Bodies are held in memory whole.",
                    (d, bytes) -> d.httpOptions.maxBody(bytes)),
            Setting.of(
                    "idle-timeout",
                    code(Durations.format(HttpOptions.DEFAULT_IDLE_TIMEOUT)),
                    HttpOptions.IDLE_TIMEOUT_BOUNDS,
                    "A connection that sends nothing this long is closed; {bounds}.",
                    (d, timeout) -> d.httpOptions.idleTimeout(timeout)),
            Setting.of(
                    "max-connections",
                    code(HttpOptions.DEFAULT_MAX_CONNECTIONS),
                    HttpOptions.MAX_CONNECTIONS_BOUNDS,
                    "Connections the agent holds open at once, over the claim and ops ports: one more is closed as"
                            + " soon as it is accepted, and counted in `dedup_http_connections_refused_total`;"
                            + " {bounds}.",
                    (d, connections) -> d.httpOptions.maxConnections(connections)),
            Setting.of(
                    "event-loops",
                    "one per core",
                    HttpOptions.EVENT_LOOPS_BOUNDS,
                    "HTTP event loops, {bounds}.",
                    (d, loops) -> d.httpOptions.eventLoops(loops)),
            Setting.of(
                    "shutdown-grace",
                    code(Durations.format(HttpOptions.DEFAULT_SHUTDOWN_GRACE)),
                    HttpOptions.SHUTDOWN_GRACE_BOUNDS,
                    "How long SIGTERM waits for requests in flight; {bounds}.",
                    (d, grace) -> d.httpOptions.shutdownGrace(grace)),
            Setting.of(
                    "token",
                    "none",
                    "Bearer token every request but the probes `/health/live` and `/health/ready` must carry "
                            + "(`Authorization: Bearer <token>`; else 401; a probe without it gets its status but not "
                            + "`/health/ready`'s reason): " + Tokens.RULE + ". Compared in "
                            + "constant time, never logged. `DEDUP_TOKEN` is also the variable the clients send the "
                            + "token from, so that a worker and its sidecar may share it "
                            + "([configuration.md](configuration.md#the-clients-variables)).",
                    (d, v) -> d.httpOptions.token(v.textOrNull())),
            Setting.of(
                    "token-file",
                    "none",
                    "A file of claim tokens instead of `--token`, one a line (a Kubernetes Secret's key mounted as a "
                            + "file is one): the agent accepts each, and re-reads the file within "
                            + Durations.format(HttpOptions.TOKEN_FILE_CHECK)
                            + " of a change, so that a token is rotated without a "
                            + "restart: write the new token below the old one (" + Tokens.MAX_PER_FILE + " at most), "
                            + "move the workers to it, then remove the old one; emptying the file revokes its tokens. A file that becomes "
                            + "unreadable or holds a refused token is not applied (the tokens before it stay; "
                            + "`dedup_token_file_reloads_total{result=\"refused\"}` counts it). Keeps the token out of "
                            + "the process list and the environment.",
                    (d, v) -> d.httpOptions.tokenFile(v.textOrNull() == null ? null : Path.of(v.text()))),
            Setting.of(
                    "read-token",
                    "none",
                    "A bearer token that reads `/metrics` and `/v1/stats` (and `/health/ready`'s reason) and "
                            + "nothing else, for scrapers and dashboards; a claim or a release with it gets 403. With "
                            + "any token set, `/metrics` and `/v1/stats` want one, on both ports. Checked as "
                            + "`--token` is.",
                    (d, v) -> d.httpOptions.readToken(v.textOrNull())),
            Setting.of(
                    "read-token-file",
                    "none",
                    "A file of read tokens instead of `--read-token`, read and re-read as `--token-file` is.",
                    (d, v) -> d.httpOptions.readTokenFile(v.textOrNull() == null ? null : Path.of(v.text()))),
            Setting.of(
                    "tls-cert-file",
                    "none: plain HTTP",
                    "A PEM certificate chain (the server's certificate first, as a Kubernetes TLS Secret's `tls.crt`): "
                            + "with `--tls-key-file`, both ports speak TLS alone (a plain request is refused), and the two "
                            + "files are re-read within " + Durations.format(HttpOptions.TOKEN_FILE_CHECK) + " of a "
                            + "change, so that a renewed certificate is served without a restart (a pair that does not "
                            + "load is not applied: `dedup_tls_reloads_total{result=\"refused\"}`). Clients trust it "
                            + "through their CA file (`DEDUP_CA_FILE`).",
                    (d, v) -> d.httpOptions.tlsCertFile(v.textOrNull() == null ? null : Path.of(v.text()))),
            Setting.of(
                    "tls-key-file",
                    "none",
                    "The PEM private key of `--tls-cert-file` (PKCS#8 or PKCS#1, not encrypted; a TLS Secret's "
                            + "`tls.key`).",
                    (d, v) -> d.httpOptions.tlsKeyFile(v.textOrNull() == null ? null : Path.of(v.text()))),
            Setting.flag(
                    "insecure-bind",
                    "Allow a non-loopback `--host` without `--token`: anyone who can reach the port may claim and "
                            + "release.",
                    (d, v) -> d.httpOptions.insecureBind(v.bool())),
            Setting.configFile("A properties file with any of the file keys above."));

    /**
     * Variables of the clients (the Java and the Python {@code DedupClient}) that are not settings: a pod that gives
     * its worker and its sidecar one environment gives the agent these too, and the agent leaves them alone rather
     * than refusing them as unknown. {@code DEDUP_TOKEN} is not among them: it is {@code --token}'s variable, and one
     * token read by both sides, the agent requiring it and the worker sending it, is the point of sharing it.
     */
    static final Set<String> CLIENT_VARIABLES = Set.of("DEDUP_URL", "DEDUP_CA_FILE");

    private Settings() {}

    /** The names of every setting ({@code max-batch}, ...), in their order. */
    public static List<String> names() {
        return ALL.stream().map(Setting::name).toList();
    }

    /** The setting named {@code name}, or null. */
    static Setting named(String name) {
        for (Setting s : ALL) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        return null;
    }

    /** The setting whose environment variable is {@code env}, or null. */
    static Setting byEnv(String env) {
        for (Setting s : ALL) {
            if (!s.isConfigFile() && s.env().equals(env)) {
                return s;
            }
        }
        return null;
    }

    /** The per-namespace setting whose file keys end with {@code key}'s suffix, or null. */
    static Setting byNamespaceKey(String key) {
        for (Setting s : ALL) {
            if (s.perNamespace() && namespaceOf(key, s) != null) {
                return s;
            }
        }
        return null;
    }

    /** The namespace of {@code namespace.<ns><suffix>}, or null when the key is not one of {@code s}'s. */
    static String namespaceOf(String key, Setting s) {
        String suffix = s.fileSuffix();
        if (!key.startsWith(NAMESPACE_PREFIX)
                || !key.endsWith(suffix)
                || key.length() <= NAMESPACE_PREFIX.length() + suffix.length()) {
            return null;
        }
        return key.substring(NAMESPACE_PREFIX.length(), key.length() - suffix.length());
    }

    /**
     * Splits a shard list on commas, except the commas between the sentinels of one
     * {@code redis-sentinel://s1:26379,s2:26379#master} (or {@code rediss-sentinel://}) URI or the nodes of one
     * {@code redis-cluster://n1:7000,n2:7000} URI: a piece without a scheme continues the last URI.
     */
    static List<String> shardUris(String list) {
        List<String> uris = new ArrayList<>();
        for (String piece : list.split(",")) {
            String p = piece.trim();
            if (p.isEmpty()) {
                continue;
            }
            String last = uris.isEmpty() ? null : uris.get(uris.size() - 1);
            if (!p.contains("://") && last != null && (RedisOptions.isSentinel(last) || RedisOptions.isCluster(last))) {
                uris.set(uris.size() - 1, last + "," + p);
            } else {
                uris.add(p);
            }
        }
        return List.copyOf(uris);
    }

    /** The text of {@code --help}. */
    public static String help() {
        StringBuilder sb = new StringBuilder("""
                Usage: java -jar dedup-agent.jar [--setting value ...]
                       java -jar dedup-agent.jar plan --rate 2M/min [--window 24h] (sizes a Redis tier)
                       java -jar dedup-agent.jar self-test [--setting value ...] (claims through an agent
                         of these settings on a free loopback port, checks the answers, exits 0 or 1)
                       java -jar dedup-agent.jar --version (prints dedup-agent and the version)

                Answers new / retry / duplicate for batches of (id, owner) on http://HOST:PORT/v1/claims.
                Each setting is also DEDUP_<NAME> in the environment and <name>=value in a --config file;
                a flag beats the environment, which beats the file, which beats the default. Any other
                DEDUP_* variable stops the start, except the clients' DEDUP_URL, which the agent ignores.
                The same list, with links: docs/configuration.md.

                """);
        for (Setting s : ALL) {
            sb.append("  ").append(s.flag());
            String text = plain(s.doc()) + " Default: " + plain(s.defaultText()) + ".";
            if (s.perNamespace()) {
                sb.append(" ns=VALUE");
                text = "Repeatable; also " + s.env() + " (comma-separated) and " + s.fileKey() + " in a file. " + text;
            }
            sb.append('\n');
            for (String line : wrap(text, 92)) {
                sb.append("      ").append(line).append('\n');
            }
        }
        return sb.toString();
    }

    /** The settings table of {@code docs/configuration.md}, header included, one line per setting. */
    public static String markdownTable() {
        StringBuilder sb = new StringBuilder("| setting | environment | file key | default | what it does |\n");
        sb.append("|---|---|---|---|---|\n");
        for (Setting s : ALL) {
            String fileKey = s.fileKey() == null ? "\u2014" : "`" + s.fileKey() + "`";
            sb.append("| `")
                    .append(s.flag())
                    .append("` | `")
                    .append(s.env())
                    .append("` | ")
                    .append(fileKey)
                    .append(" | ")
                    .append(s.defaultText())
                    .append(" | ")
                    .append(s.doc())
                    .append(" |\n");
        }
        return sb.toString();
    }

    /** A default that is a value the setting accepts, as the page writes it: in backquotes. */
    private static String code(Object value) {
        return "`" + value + "`";
    }

    private static final Pattern LINK = Pattern.compile("\\[([^\\]]+)\\]\\(([^)]+)\\)");

    /** Markdown to the plain text of {@code --help}: no backquotes or asterisks; a link to a page names it. */
    static String plain(String markdown) {
        Matcher m = LINK.matcher(markdown);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String target = m.group(2);
            String text = target.contains(".md") && !target.startsWith("http") ? "docs/" + target : m.group(1);
            m.appendReplacement(sb, Matcher.quoteReplacement(text));
        }
        m.appendTail(sb);
        return sb.toString().replace("`", "").replace("**", "");
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
