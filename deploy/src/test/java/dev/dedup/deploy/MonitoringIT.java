package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.RedisServer;
import dev.dedup.client.DedupClient;
import dev.dedup.client.DedupException;
import dev.dedup.wire.Item;
import dev.dedup.wire.SequenceRange;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.Rule;
import io.fabric8.openshift.api.model.monitoring.v1.RuleGroup;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PrometheusRule passes {@code promtool check rules} and its alerts fire in {@code promtool test rules};
 * every metric, label and label value that the rules, the Grafana dashboard, the runbooks of docs/operations.md,
 * README.md and the other pages of docs/ name is one that real agents publish in /metrics (one on Redis with a
 * token driven through claims, ranges, rejections, Redis out of memory and Redis gone; one on the embedded store
 * without), but for the
 * kube-state-metrics series named below; the JVM's and the process's own ({@code jvm_*}, {@code process_*},
 * {@code system_*}) are in both. Both agents are scraped as the PodMonitors scrape them: on the ops port, with
 * the token where the agent has one. Every alert has a {@code runbook_url} naming its section of
 * docs/operations.md, and every runbook there is an alert's.
 */
class MonitoringIT {

    /**
     * Series not from the agent: kube-state-metrics' readiness and restarts of the agent's container, a native
     * sidecar being an init container there (DedupAgentNotReady, DedupAgentRestarting).
     */
    static final Set<String> EXTERNAL = Set.of(
            "kube_pod_container_status_ready",
            "kube_pod_init_container_status_ready",
            "kube_pod_container_status_restarts_total",
            "kube_pod_init_container_status_restarts_total");
    /** The JVM's and the process's meters (Micrometer's binders): the same whatever the store. */
    static final Pattern PROCESS_METRIC = Pattern.compile("(jvm|process|system)_\\w+");

    static final Path RUNBOOKS = Tools.ROOT.resolve("docs/operations.md");
    static final String RUNBOOK_URL = "docs/operations.md#";
    /** Labels Prometheus adds to every scraped series from the target (the PodMonitor's pod). */
    static final Set<String> TARGET_LABELS = Set.of("namespace", "pod", "container", "job", "instance", "endpoint");

    static final String TOKEN = "monitoring-it-token-012345";

    @TempDir
    static Path dir;

    /** metric name to label to the values seen, on either agent. */
    static final Map<String, Map<String, Set<String>>> SEEN = new HashMap<>();
    /** The metric names each agent published: the one on Redis, the one on the embedded store. */
    static final Set<String> ON_REDIS = new HashSet<>();

    static final Set<String> ON_EMBEDDED = new HashSet<>();

    static PrometheusRule rule() {
        return Manifests.render("monitoring").stream()
                .map(Manifests::strict)
                .filter(PrometheusRule.class::isInstance)
                .map(PrometheusRule.class::cast)
                .findFirst()
                .orElseThrow();
    }

    static Path rulesFile() throws Exception {
        Path f = dir.resolve("dedup-rules.yml");
        JsonNode spec = Manifests.YAML.valueToTree(rule().getSpec());
        Files.writeString(f, Manifests.YAML.writeValueAsString(spec));
        return f;
    }

    @Test
    void promtoolChecksTheRules() throws Exception {
        Tools.require("promtool", "prometheus");
        Tools.Result r = Tools.run(
                Duration.ofMinutes(1),
                Tools.list("promtool", "check", "rules", rulesFile().toString()));
        assertEquals(0, r.exit(), r.output());
        assertTrue(r.output().contains("SUCCESS: 18 rules found"), r.output());
    }

    @Test
    void alertsFireOnTheSeriesTheyWatch() throws Exception {
        Tools.require("promtool", "prometheus");
        Path tests = dir.resolve("dedup-rules-test.yml");
        Files.writeString(tests, """
                rule_files: [%s]
                evaluation_interval: 1m
                tests:
                  - interval: 1m
                    input_series:
                      - series: 'dedup_errors_total{namespace="spark",pod="exec-1",kind="unavailable"}'
                        values: '0+10x20'
                      - series: 'dedup_redis_memory_used_bytes{namespace="spark",pod="exec-1",shard="0"}'
                        values: '500+50x20'
                      - series: 'dedup_redis_memory_max_bytes{namespace="spark",pod="exec-1",shard="0"}'
                        values: '1000x20'
                      - series: 'dedup_claims_total{namespace="spark",pod="exec-1",verdict="new"}'
                        values: '0+1000x30'
                      - series: 'cache_gets_total{namespace="spark",pod="exec-1",cache="near_cache",result="hit"}'
                        values: '0+0x30'
                      - series: 'cache_gets_total{namespace="spark",pod="exec-1",cache="near_cache",result="miss"}'
                        values: '0+0x30'
                      - series: 'dedup_redis_shard_topology_ok{namespace="spark",pod="exec-1",shard="1"}'
                        values: '1 1 0 0 0 0 0 0'
                      - series: 'dedup_redis_noeviction{namespace="spark",pod="exec-1",shard="2"}'
                        values: '1 1 0 0 0 0 0 0 0 0'
                      - series: 'kube_pod_init_container_status_ready{namespace="spark",pod="exec-2",container="dedup-agent"}'
                        values: '1 1 0 0 0 0 0 0 0 0'
                      - series: 'kube_pod_init_container_status_restarts_total{namespace="spark",pod="exec-2",container="dedup-agent"}'
                        values: '0 0 1 1 2 2 3 3 3 3'
                      - series: 'jvm_gc_pause_seconds_sum{namespace="spark",pod="exec-3",action="end of minor GC",cause="G1 Evacuation Pause"}'
                        values: '0+12x30'
                    alert_rule_test:
                      - eval_time: 10m
                        alertname: DedupAgentUnavailable
                        exp_alerts:
                          - exp_labels: {severity: critical, namespace: spark, pod: exec-1}
                            exp_annotations:
                              runbook_url: docs/operations.md#dedupagentunavailable
                              summary: "dedup agent spark/exec-1 answers 503"
                              description: "The agent cannot decide (its store is down, slow, out of memory or read-only), so its workers retry and make no progress. See dedup_store_errors_total by kind and the agent's log."
                      - eval_time: 8m
                        alertname: DedupRedisNearlyFull
                        exp_alerts: []
                      - eval_time: 17m
                        alertname: DedupRedisNearlyFull
                        exp_alerts:
                          - exp_labels: {severity: warning, namespace: spark, shard: "0"}
                            exp_annotations:
                              runbook_url: docs/operations.md#dedupredisnearlyfull
                              summary: "dedup: Redis shard 0 is over 80 %% of its maxmemory"
                              description: "At maxmemory the shard refuses new claims (503, kind oom) until claims end. Raise its maxmemory, add a shard (a declared change of the shard list), or shorten the window (docs/redis.md)."
                      - eval_time: 5m
                        alertname: DedupRedisShardLostItsData
                        exp_alerts:
                          - exp_labels: {severity: critical, namespace: spark, pod: exec-1, shard: "1"}
                            exp_annotations:
                              runbook_url: docs/operations.md#dedupredisshardlostitsdata
                              summary: "dedup: Redis shard 1 lost its data (spark/exec-1)"
                              description: "The shard holds no topology record (restarted without persistence, flushed or replaced), so the agents answer 503 for its ids rather than forget them. Restore it (AOF, RDB, a replica), or accept the loss with one agent start with --redis-adopt-empty-shards (docs/redis.md)."
                      - eval_time: 25m
                        alertname: DedupNearCacheBypassed
                        exp_alerts:
                          - exp_labels: {severity: warning, namespace: spark, pod: exec-1}
                            exp_annotations:
                              runbook_url: docs/operations.md#dedupnearcachebypassed
                              summary: "dedup near-cache bypassed on spark/exec-1"
                              description: "The agent lost its subscription to the release channel, so it cleared its near-cache and sends every id to Redis (correct, but slower and more load on Redis). See the agent's log and Redis."
                      - eval_time: 6m
                        alertname: DedupRedisMayEvict
                        exp_alerts: []
                      - eval_time: 8m
                        alertname: DedupRedisMayEvict
                        exp_alerts:
                          - exp_labels: {severity: critical, namespace: spark, shard: "2"}
                            exp_annotations:
                              runbook_url: docs/operations.md#dedupredismayevict
                              summary: "dedup: Redis shard 2 may evict claims (spark)"
                              description: "The shard's maxmemory-policy is not noeviction: at maxmemory Redis drops buckets of claims, and the later copies of their messages are answered new (processed twice), with no error. Set maxmemory-policy noeviction."
                      - eval_time: 8m
                        alertname: DedupAgentNotReady
                        exp_alerts:
                          - exp_labels: {severity: warning, namespace: spark, pod: exec-2}
                            exp_annotations:
                              runbook_url: docs/operations.md#dedupagentnotready
                              summary: "dedup agent spark/exec-2 not ready"
                              description: "Its store does not answer (/health/ready is 503), so its workers get 503 and wait."
                      - eval_time: 9m
                        alertname: DedupAgentRestarting
                        exp_alerts:
                          - exp_labels: {severity: warning, namespace: spark, pod: exec-2}
                            exp_annotations:
                              runbook_url: docs/operations.md#dedupagentrestarting
                              summary: "dedup agent spark/exec-2 restarted 3 times in 30 minutes"
                              description: "The agent exits: exit code 2 is a setting or a Redis it refuses (the one line it printed says which), 1 a start that failed, 3 its heap exhausted, 137 its memory limit. See the previous container's log."
                      - eval_time: 20m
                        alertname: DedupAgentGcPressure
                        exp_alerts:
                          - exp_labels: {severity: warning, namespace: spark, pod: exec-3}
                            exp_annotations:
                              runbook_url: docs/operations.md#dedupagentgcpressure
                              summary: "dedup agent spark/exec-3 spends over 10 %% of its time in GC"
                              description: "The agent's heap is too small for its near-cache and the batches in flight: claims slow down. Compare jvm_memory_used_bytes with jvm_memory_max_bytes (area heap); raise the memory limit or lower --near-cache-size or --max-body."
                """.formatted(rulesFile()));
        Tools.Result r = Tools.run(Duration.ofMinutes(1), Tools.list("promtool", "test", "rules", tests.toString()));
        assertEquals(0, r.exit(), r.output());
    }

    @BeforeAll
    static void scrapeRealAgents() throws Exception {
        Tools.require("redis-server", "redis-server");
        // Redis: small enough to run out of memory under noeviction
        try (RedisServer redis = RedisServer.start(dir.resolve("redis"), "--maxmemory", "4mb")) {
            int port = AgentProcess.freePort();
            int opsPort = AgentProcess.freePort();
            // an event-time namespace, so that its buckets' overfull counter is there too
            try (Proc agent = agent(
                    port,
                    opsPort,
                    "--redis",
                    redis.uri(),
                    "--token",
                    TOKEN,
                    "--redis-timeout",
                    "500ms",
                    "--namespace-event-rate",
                    "timed=16")) {
                String url = "http://127.0.0.1:" + port;
                DedupClient worker =
                        DedupClient.builder(URI.create(url)).token(TOKEN).build();
                List<Item> items = batch("m", 0, 1000);
                worker.claim("metrics", items); // new
                worker.claim("metrics", items); // retry, from the near-cache
                worker.claim("metrics", batch("m", 1, 1000)); // duplicate
                worker.release("metrics", items.subList(0, 10));
                checkAndCommitRanges(worker);
                post(url, "application/json", "{not json", TOKEN); // bad_request
                post(url, "text/plain", "x", TOKEN); // unsupported_media_type
                post(url, "application/json", "{}", null); // unauthorized
                boolean oom = false;
                for (int b = 0; b < 200 && !oom; b++) {
                    try {
                        worker.claim("metrics", batch("fill-" + b, 0, 5000));
                    } catch (DedupException e) {
                        // on a busy machine a batch may first time out (a 503 too): fill on until Redis says OOM
                        oom = e.status() == 503 && String.valueOf(e.detail()).contains("OOM");
                    }
                }
                assertTrue(oom, "Redis never ran out of memory");
                redis.kill(); // connection errors
                for (int i = 0; i < 3; i++) {
                    try {
                        worker.claim("metrics", batch("gone-" + i, 0, 10));
                    } catch (DedupException expected) {
                        // 503
                    }
                }
                read(get("http://127.0.0.1:" + opsPort + "/metrics", TOKEN), ON_REDIS);
                assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
            }
        }
        int port = AgentProcess.freePort();
        int opsPort = AgentProcess.freePort();
        try (Proc agent =
                agent(port, opsPort, "--data-dir", dir.resolve("embedded").toString(), "--embedded-slots", "65536")) {
            String url = "http://127.0.0.1:" + port;
            DedupClient worker = DedupClient.create(URI.create(url));
            worker.claim("metrics", batch("e", 0, 100));
            checkAndCommitRanges(worker);
            read(get("http://127.0.0.1:" + opsPort + "/metrics", null), ON_EMBEDDED);
            assertEquals(0, agent.terminate(Duration.ofSeconds(30)), agent.output());
        }
    }

    /** Ranges checked before and after a commit, so that each {@code done} of the check counter is seen. */
    static void checkAndCommitRanges(DedupClient worker) throws Exception {
        List<SequenceRange> tenToTwenty = List.of(SequenceRange.of(10, 20));
        assertEquals(List.of(List.of()), worker.checkRanges("metrics", "s", tenToTwenty)); // none
        worker.commitRanges("metrics", "s", tenToTwenty);
        assertEquals(List.of(tenToTwenty), worker.checkRanges("metrics", "s", tenToTwenty)); // all
        assertEquals(
                List.of(tenToTwenty), worker.checkRanges("metrics", "s", List.of(SequenceRange.of(10, 30)))); // partial
    }

    /** An agent with its claim API on {@code port} and its operations endpoints also on {@code opsPort}. */
    static Proc agent(int port, int opsPort, String... args) {
        List<String> cmd = Tools.list(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-jar",
                Tools.agentJar().toString(),
                "--port",
                String.valueOf(port),
                "--ops-port",
                String.valueOf(opsPort),
                "--ops-host",
                "127.0.0.1");
        cmd.addAll(List.of(args));
        Proc p = Proc.start(cmd, Map.of(), dir, "agent-" + port);
        Tools.await(
                Duration.ofSeconds(60),
                "agent up: " + p.output(),
                () -> Proc.probe("127.0.0.1", opsPort, "/health/live", 1) == 200);
        return p;
    }

    static List<Item> batch(String prefix, int owner, int n) {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            items.add(new Item(prefix + "-" + i, owner + ":" + i));
        }
        return items;
    }

    static String get(String url, String token) throws Exception {
        return Proc.get(url, token).body();
    }

    static void post(String url, String type, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url + "/v1/claims"))
                .header("Content-Type", type)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        int status = HttpClient.newHttpClient()
                .send(b.build(), HttpResponse.BodyHandlers.discarding())
                .statusCode();
        assertTrue(status >= 400 && status < 500, "expected a rejection, got " + status);
    }

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? \\S+$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static void read(String exposition, Set<String> names) {
        for (String line : exposition.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (line.startsWith("#") || !m.matches()) {
                continue;
            }
            names.add(m.group(1));
            Map<String, Set<String>> labels = SEEN.computeIfAbsent(m.group(1), k -> new LinkedHashMap<>());
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    labels.computeIfAbsent(l.group(1), k -> new HashSet<>()).add(l.group(2));
                }
            }
        }
    }

    /** Checks one expression's selectors against what the agents published; returns how many it named. */
    static int check(String where, String expr) {
        List<PromQl.Selector> selectors = PromQl.selectors(expr);
        for (PromQl.Selector s : selectors) {
            if (EXTERNAL.contains(s.metric())) {
                continue;
            }
            Map<String, Set<String>> labels = SEEN.get(s.metric());
            assertTrue(
                    labels != null, where + ": no metric " + s.metric() + " in the agents' /metrics " + SEEN.keySet());
            if (PROCESS_METRIC.matcher(s.metric()).matches()) {
                assertTrue(
                        ON_REDIS.contains(s.metric()) && ON_EMBEDDED.contains(s.metric()),
                        where + ": " + s.metric() + " is not published by both agents, whatever their store");
            }
            for (PromQl.Matcher m : s.matchers()) {
                if (TARGET_LABELS.contains(m.label())) {
                    continue;
                }
                assertTrue(labels.containsKey(m.label()), where + ": " + s.metric() + " has no label " + m.label());
                if (m.op().equals("=") && !m.value().startsWith("$")) {
                    assertTrue(
                            labels.get(m.label()).contains(m.value()),
                            where + ": " + s.metric() + "{" + m.label() + "} is never " + m.value() + ": "
                                    + labels.get(m.label()));
                }
            }
        }
        return selectors.size();
    }

    @Test
    void everyMetricTheRulesNameExists() {
        int named = 0;
        for (RuleGroup g : rule().getSpec().getGroups()) {
            for (Rule r : g.getRules()) {
                String name = r.getAlert() != null ? r.getAlert() : r.getRecord();
                int n = check(name, r.getExpr().getStrVal());
                assertTrue(n > 0, name + " names no metric");
                named += n;
            }
        }
        assertTrue(named >= 17);
    }

    /** GitHub's anchor of a heading: lower case, spaces to dashes, other punctuation dropped. */
    static String anchor(String heading) {
        return heading.trim()
                .toLowerCase(java.util.Locale.ROOT)
                .replaceAll("[^a-z0-9 _-]", "")
                .replace(' ', '-');
    }

    /** The anchors of docs/operations.md's headings. */
    static Set<String> runbookAnchors() throws Exception {
        Set<String> anchors = new HashSet<>();
        for (String line : Files.readAllLines(RUNBOOKS)) {
            if (line.startsWith("#")) {
                anchors.add(anchor(line.replaceFirst("^#+", "")));
            }
        }
        return anchors;
    }

    @Test
    void everyAlertHasARunbookUrl_whoseSectionOfOperationsMdExists() throws Exception {
        Set<String> anchors = runbookAnchors();
        int alerts = 0;
        for (RuleGroup g : rule().getSpec().getGroups()) {
            for (Rule r : g.getRules()) {
                if (r.getAlert() == null) {
                    continue;
                }
                alerts++;
                String url = r.getAnnotations().get("runbook_url");
                assertEquals(
                        RUNBOOK_URL + anchor(r.getAlert()),
                        url,
                        r.getAlert() + ": runbook_url should name its own section of docs/operations.md");
                assertTrue(
                        anchors.contains(url.substring(RUNBOOK_URL.length())),
                        r.getAlert() + ": " + RUNBOOKS + " has no heading for #" + url.substring(RUNBOOK_URL.length()));
            }
        }
        assertTrue(alerts >= 15, alerts + " alerts");
    }

    @Test
    void everyRunbookIsAnAlerts_andNamesOnlyMetricsTheAgentsPublish() throws Exception {
        Set<String> alerts = new HashSet<>();
        rule().getSpec()
                .getGroups()
                .forEach(g ->
                        g.getRules().stream().filter(r -> r.getAlert() != null).forEach(r -> alerts.add(r.getAlert())));
        String page = Files.readString(RUNBOOKS);
        Matcher runbook = Pattern.compile("(?m)^## (Dedup\\w+)$").matcher(page);
        Set<String> runbooks = new HashSet<>();
        while (runbook.find()) {
            assertTrue(alerts.contains(runbook.group(1)), "docs/operations.md: no alert " + runbook.group(1));
            runbooks.add(runbook.group(1));
        }
        assertEquals(alerts, runbooks, "one runbook per alert");
        // `dedup_store_errors_total{kind="oom"}`, `jvm_memory_used_bytes`: the selectors in code spans
        Matcher code = Pattern.compile("`([^`]+)`").matcher(page);
        int named = 0;
        while (code.find()) {
            String span = code.group(1);
            if (span.matches("(dedup|cache|jvm|process|system)_[a-z0-9_]+(\\{.*})?")
                    && !span.matches("dedup_[a-z0-9_]*:.*")) {
                named += check("docs/operations.md `" + span + "`", span.replaceAll("\\{([a-z_]+(,[a-z_]+)*)}", ""));
            }
        }
        assertTrue(named >= 20, named + " metrics named in docs/operations.md");
    }

    /**
     * Names in the pages' code spans that look like metrics and are not: the Python package, a Python function, the
     * verdict column of the Spark transforms.
     */
    static final Set<String> NOT_METRICS = Set.of("dedup_client", "dedup_partition", "dedup_verdict");
    /** Labels whose values depend on the build that runs (the pages quote an example): their values are not checked. */
    static final Set<String> BUILD_LABELS = Set.of("version", "java");

    private static final Pattern DOCS_METRIC = Pattern.compile(
            "(?<![\\w.])((?:dedup|cache|jvm|process|system)_[a-z0-9_]*)(\\*)?(?:\\{([^}]*)})?(?![\\w.(])");
    private static final Pattern DOCS_MATCHER = Pattern.compile("([a-z_]+)\\s*(=~|!=|!~|=)\\s*\"([^\"]*)\"");

    /**
     * The kinds of {@code dedup_store_errors_total} the agent declares (its {@code FailureKind}, read from the jar
     * these tests run): the agents here provoke some of them, and the pages may name any.
     */
    static Set<String> failureKinds() {
        try (java.net.URLClassLoader jar = new java.net.URLClassLoader(
                new java.net.URL[] {Tools.agentJar().toUri().toURL()}, null)) {
            Class<?> kinds = jar.loadClass("dev.dedup.agent.store.FailureKind");
            Set<String> tags = new HashSet<>();
            for (Object kind : kinds.getEnumConstants()) {
                tags.add((String) kinds.getMethod("tag").invoke(kind));
            }
            return tags;
        } catch (ReflectiveOperationException | java.io.IOException e) {
            throw new AssertionError("the agent jar's FailureKind: " + e, e);
        }
    }

    /** The series name the agents publish for a name the pages write: itself, or a histogram's or summary's base. */
    static String published(String name) {
        if (SEEN.containsKey(name)) {
            return name;
        }
        for (String suffix : List.of("_count", "_bucket")) {
            if (SEEN.containsKey(name + suffix)) {
                return name + suffix;
            }
        }
        return null;
    }

    /**
     * Every metric README.md and the pages of docs/ name in a code span ({@code dedup_claims_total{verdict}},
     * {@code cache_size{cache="near_cache"}}, {@code jvm_buffer_*}) is one that the agents publish, with each label
     * named and each value given, or a series the rules record. The archive of dated runs is left as it was.
     */
    @Test
    void everyMetricThePagesName_isOneTheAgentsPublish() throws Exception {
        Set<String> recorded = new HashSet<>();
        rule().getSpec()
                .getGroups()
                .forEach(g -> g.getRules().stream()
                        .filter(r -> r.getRecord() != null)
                        .forEach(r -> recorded.add(r.getRecord())));
        List<Path> pages = new ArrayList<>(List.of(Tools.ROOT.resolve("README.md")));
        try (var docs = Files.list(Tools.ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> wrong = new ArrayList<>();
        int named = 0;
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher span = Pattern.compile("`([^`]+)`").matcher(lines.get(i));
                while (span.find()) {
                    Matcher m = DOCS_METRIC.matcher(span.group(1));
                    while (m.find()) {
                        String name = m.group(1);
                        if (NOT_METRICS.contains(name) || recorded.contains(name)) {
                            continue;
                        }
                        named++;
                        String where = Tools.ROOT.relativize(page) + ":" + (i + 1) + ": " + m.group();
                        if (m.group(2) != null) {
                            if (SEEN.keySet().stream().noneMatch(k -> k.startsWith(name))) {
                                wrong.add(where + ": no metric starts so");
                            }
                            continue;
                        }
                        String series = published(name);
                        if (series == null) {
                            wrong.add(where + ": the agents publish no such metric");
                            continue;
                        }
                        wrong.addAll(labelsWrong(where, series, m.group(3)));
                    }
                }
            }
        }
        assertTrue(named >= 60, named + " metrics named in the pages");
        assertEquals(List.of(), wrong, "metrics the pages name that real agents' /metrics do not have");
    }

    /**
     * What is wrong with {@code labels} as the pages write them for {@code series}: a list of names ({@code
     * {shard,op}}) or matchers ({@code {kind="oom"}}, {@code {done="none|partial|all"}}: each alternative seen).
     */
    static List<String> labelsWrong(String where, String series, String labels) {
        List<String> wrong = new ArrayList<>();
        if (labels == null || labels.isBlank()) {
            return wrong;
        }
        Map<String, Set<String>> seen = SEEN.get(series);
        Set<String> storeErrorKinds = series.equals("dedup_store_errors_total") ? failureKinds() : Set.of();
        // the commas between labels, not those inside a quoted value
        for (String piece : labels.split(",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
            Matcher m = DOCS_MATCHER.matcher(piece.strip());
            String label = m.matches() ? m.group(1) : piece.strip();
            if (TARGET_LABELS.contains(label)) {
                continue;
            }
            if (!seen.containsKey(label)) {
                wrong.add(where + ": " + series + " has no label " + label + " " + seen.keySet());
            } else if (m.matches() && m.group(2).equals("=") && !BUILD_LABELS.contains(label)) {
                for (String value : m.group(3).split("\\|")) {
                    boolean declared = label.equals("kind") && storeErrorKinds.contains(value);
                    if (!seen.get(label).contains(value) && !declared) {
                        wrong.add(where + ": " + series + "{" + label + "} is never " + value + ": " + seen.get(label));
                    }
                }
            }
        }
        return wrong;
    }

    @Test
    void everyMetricTheDashboardNamesExists() throws Exception {
        JsonNode dash = new ObjectMapper().readTree(Tools.read(Tools.KUBERNETES.resolve("monitoring/dashboard.json")));
        int panels = 0;
        for (JsonNode panel : dash.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                assertTrue(check(panel.get("title").asText(), target.get("expr").asText()) > 0);
            }
            panels++;
        }
        assertTrue(panels >= 12);
        for (JsonNode variable : dash.path("templating").path("list")) {
            Matcher lv = Pattern.compile("label_values\\((\\w+), *(\\w+)\\)")
                    .matcher(variable.path("query").asText());
            if (lv.matches()) {
                assertTrue(SEEN.containsKey(lv.group(1)), lv.group(1));
                assertTrue(TARGET_LABELS.contains(lv.group(2))
                        || SEEN.get(lv.group(1)).containsKey(lv.group(2)));
            }
        }
        // the dashboard is shipped as the ConfigMap Grafana's sidecar loads
        String shipped = Manifests.render("monitoring").stream()
                .filter(d -> d.path("kind").asText().equals("ConfigMap"))
                .findFirst()
                .orElseThrow()
                .path("data")
                .path("dedup-agent.json")
                .asText();
        assertEquals(dash, new ObjectMapper().readTree(shipped));
        assertFalse(SEEN.containsKey("dedup_store_errors_total")
                && SEEN.get("dedup_store_errors_total").isEmpty());
    }
}
