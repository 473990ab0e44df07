package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every kustomization under deploy/kubernetes renders, every object parses strictly as its kind, and the
 * workloads keep the security rules: non-root, read-only root filesystem, no capability, no privilege
 * escalation, seccomp RuntimeDefault; secrets only from Secrets, never in a ConfigMap or a literal. The agents'
 * ports agree across the manifests: claims on loopback for the sidecars (on the pod's address with a token for the
 * node agents), probes, annotations, PodMonitors and NetworkPolicies on the ops port.
 */
class ManifestsIT {

    static Stream<String> kustomizations() {
        return Manifests.KUSTOMIZATIONS.stream();
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void rendersAndEveryObjectParsesStrictlyAsItsKind(String dir) {
        List<JsonNode> docs = Manifests.render(dir);
        assertFalse(docs.isEmpty(), dir + " renders nothing");
        for (JsonNode doc : docs) {
            HasMetadata o = Manifests.strict(doc);
            assertFalse(o instanceof io.fabric8.kubernetes.api.model.Secret, dir + " must not ship a Secret");
            assertEquals("dedup", o.getMetadata().getLabels().get("app.kubernetes.io/part-of"), Manifests.name(doc));
        }
    }

    @Test
    void sparkExecutorTemplateParsesStrictlyAsAPod() {
        List<JsonNode> docs = Manifests.file(Tools.KUBERNETES.resolve("spark/executor-pod-template.yaml"));
        assertEquals(1, docs.size());
        Pod pod = (Pod) Manifests.strict(docs.get(0));
        checkPod("spark executor template", pod.getSpec(), Map.of("executor", "spark's own container"));
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void workloadsRunNonRootReadOnlyWithoutCapabilities(String dir) {
        for (JsonNode doc : Manifests.render(dir)) {
            HasMetadata o = Manifests.strict(doc);
            PodSpec spec = podSpec(o);
            if (spec != null) {
                // the consumer container is the user's own: it follows the rules too, as an example
                checkPod(dir + "/" + o.getMetadata().getName(), spec, Map.of());
            }
        }
    }

    static PodSpec podSpec(HasMetadata o) {
        if (o instanceof Deployment d) {
            return d.getSpec().getTemplate().getSpec();
        }
        if (o instanceof DaemonSet d) {
            return d.getSpec().getTemplate().getSpec();
        }
        if (o instanceof StatefulSet s) {
            return s.getSpec().getTemplate().getSpec();
        }
        if (o instanceof Job j) {
            return j.getSpec().getTemplate().getSpec();
        }
        if (o instanceof Pod p) {
            return p.getSpec();
        }
        return null;
    }

    /** Every container: the rules, or for {@code writable} ones all but the read-only root filesystem. */
    static void checkPod(String where, PodSpec spec, Map<String, String> writable) {
        var podSc = spec.getSecurityContext();
        assertNotNull(podSc, where + ": no pod securityContext");
        assertEquals("RuntimeDefault", podSc.getSeccompProfile().getType(), where + ": seccomp");
        List<Container> all = new ArrayList<>(spec.getContainers());
        all.addAll(spec.getInitContainers());
        for (Container c : all) {
            String at = where + " container " + c.getName();
            SecurityContext sc = c.getSecurityContext();
            assertNotNull(sc, at + ": no securityContext");
            assertEquals(Boolean.FALSE, sc.getAllowPrivilegeEscalation(), at + ": allowPrivilegeEscalation");
            assertEquals(List.of("ALL"), sc.getCapabilities().getDrop(), at + ": capabilities.drop");
            assertTrue(
                    sc.getCapabilities().getAdd() == null
                            || sc.getCapabilities().getAdd().isEmpty(),
                    at);
            assertTrue(
                    Boolean.TRUE.equals(sc.getRunAsNonRoot()) || Boolean.TRUE.equals(podSc.getRunAsNonRoot()),
                    at + ": runAsNonRoot");
            Long uid = sc.getRunAsUser() != null ? sc.getRunAsUser() : podSc.getRunAsUser();
            assertTrue(uid == null || uid != 0, at + ": runAsUser 0");
            assertTrue(sc.getPrivileged() == null || !sc.getPrivileged(), at + ": privileged");
            if (!writable.containsKey(c.getName())) {
                assertEquals(Boolean.TRUE, sc.getReadOnlyRootFilesystem(), at + ": readOnlyRootFilesystem");
            }
            checkEnv(at, c.getEnv());
            if (c.getImage() != null && c.getImage().startsWith("dedup-agent")) {
                assertEquals("dedup-agent:" + Tools.version(), c.getImage(), at + ": the image of this version");
            }
        }
        assertTrue(spec.getHostNetwork() == null || !spec.getHostNetwork(), where + ": hostNetwork");
        assertTrue(spec.getHostPID() == null || !spec.getHostPID(), where + ": hostPID");
    }

    static final Pattern SECRET_NAME = Pattern.compile("(?i).*(password|token|secret|credential).*");
    static final Pattern CREDENTIALS_IN_URI = Pattern.compile("[a-z]+://[^\\s/@$]*:[^\\s/@$(]+@");

    static void checkEnv(String at, List<EnvVar> env) {
        for (EnvVar e : env) {
            if (SECRET_NAME.matcher(e.getName()).matches()) {
                assertNotNull(e.getValueFrom(), at + ": " + e.getName() + " must come from a Secret");
                assertNotNull(e.getValueFrom().getSecretKeyRef(), at + ": " + e.getName() + " must come from a Secret");
            }
            if (e.getValue() != null) {
                assertFalse(
                        CREDENTIALS_IN_URI.matcher(e.getValue()).find(),
                        at + ": " + e.getName() + " has credentials in a literal: " + e.getValue());
            }
        }
    }

    /** A workload's pod as the kubelet gets it: its labels, annotations and spec. */
    record AgentPod(String workload, Map<String, String> labels, Map<String, String> annotations, PodSpec spec) {
        Container agent() {
            return spec.getInitContainers().stream()
                    .filter(c -> c.getName().equals("dedup-agent"))
                    .findFirst()
                    .or(() -> spec.getContainers().stream()
                            .filter(c -> c.getName().equals("dedup-agent"))
                            .findFirst())
                    .orElseThrow(() -> new AssertionError(workload + ": no dedup-agent container"));
        }

        Map<String, EnvVar> env(Container c) {
            Map<String, EnvVar> env = new java.util.LinkedHashMap<>();
            c.getEnv().forEach(e -> env.put(e.getName(), e));
            return env;
        }

        boolean hasToken() {
            return agent().getArgs().contains("--token-file");
        }

        /** The value of {@code flag} in the agent's arguments. */
        String arg(String flag) {
            List<String> args = agent().getArgs();
            int at = args.indexOf(flag);
            assertTrue(at >= 0 && at + 1 < args.size(), workload + ": no " + flag + " in " + args);
            return args.get(at + 1);
        }

        int port(String name) {
            return agent().getPorts().stream()
                    .filter(p -> name.equals(p.getName()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(workload + ": no container port " + name))
                    .getContainerPort();
        }
    }

    static final List<String> AGENT_WORKLOADS = List.of("spark", "consumer", "consumer-embedded", "daemonset");

    static AgentPod agentPod(String workload) {
        if (workload.equals("spark")) {
            Pod pod =
                    (Pod) Manifests.strict(Manifests.file(Tools.KUBERNETES.resolve("spark/executor-pod-template.yaml"))
                            .get(0));
            return new AgentPod(
                    workload, pod.getMetadata().getLabels(), pod.getMetadata().getAnnotations(), pod.getSpec());
        }
        for (JsonNode doc : Manifests.render(workload)) {
            HasMetadata o = Manifests.strict(doc);
            io.fabric8.kubernetes.api.model.PodTemplateSpec template = o instanceof Deployment d
                    ? d.getSpec().getTemplate()
                    : o instanceof DaemonSet ds ? ds.getSpec().getTemplate() : null;
            if (template != null) {
                return new AgentPod(
                        workload,
                        template.getMetadata().getLabels(),
                        template.getMetadata().getAnnotations(),
                        template.getSpec());
            }
        }
        throw new AssertionError(workload + " renders no workload");
    }

    /**
     * The sidecars' claim API on the pod's loopback without a token, their worker given DEDUP_URL alone; the node
     * agent's on the pod's address with the token of the Secret; every probe and scrape on the ops port.
     */
    @ParameterizedTest
    @ValueSource(strings = {"spark", "consumer", "consumer-embedded", "daemonset"})
    void agentsClaimOnLoopbackUnlessNodeAgents_andAnswerProbesAndScrapesOnTheOpsPort(String workload) {
        AgentPod pod = agentPod(workload);
        Container agent = pod.agent();
        boolean node = workload.equals("daemonset");
        assertEquals("7070", pod.arg("--port"), workload);
        assertEquals(node ? "$(POD_IP)" : "127.0.0.1", pod.arg("--host"), workload);
        assertEquals(String.valueOf(pod.port("dedup-ops")), pod.arg("--ops-port"), workload);
        assertEquals(7071, pod.port("dedup-ops"), workload);
        assertFalse(agent.getArgs().contains("--ops-host"), workload + ": the ops port on every address");
        assertFalse(agent.getArgs().contains("--insecure-bind"), workload);
        List<String> ports = agent.getPorts().stream()
                .map(p -> p.getName() + ":" + p.getContainerPort())
                .toList();
        assertEquals(
                node ? List.of("dedup:7070", "dedup-ops:7071") : List.of("dedup-ops:7071"),
                ports,
                workload + ": a loopback port is not a port of the pod");
        PodContainer pc = new PodContainer(agent, List.of(), Map.of(), Map.of());
        assertEquals(3, pc.probes().size(), workload);
        for (var probe : pc.probes()) {
            assertEquals("dedup-ops", probe.getHttpGet().getPort().getStrVal(), workload + " probe");
        }
        assertEquals(node, pod.hasToken(), workload + ": the agent's token file");
        assertFalse(pod.env(agent).containsKey("DEDUP_TOKEN"), workload + ": no token in the environment");
        if (node) {
            // the token files are the Secret's keys, mounted read-only where the arguments name them
            assertEquals("/run/secrets/dedup-agent/token", pod.arg("--token-file"));
            assertEquals("/run/secrets/dedup-agent/read-token", pod.arg("--read-token-file"));
            var mount = agent.getVolumeMounts().stream()
                    .filter(m -> m.getMountPath().equals("/run/secrets/dedup-agent"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("the Secret dedup-agent is not mounted"));
            assertTrue(mount.getReadOnly(), "read-only");
            var volume = pod.spec().getVolumes().stream()
                    .filter(v -> v.getName().equals(mount.getName()))
                    .findFirst()
                    .orElseThrow();
            assertEquals("dedup-agent", volume.getSecret().getSecretName());
            assertEquals(
                    List.of("token:token", "read-token:read-token"),
                    volume.getSecret().getItems().stream()
                            .map(i -> i.getKey() + ":" + i.getPath())
                            .toList());
            assertEquals(0440, volume.getSecret().getDefaultMode(), "the agent's group reads it, no one else");
            assertEquals(
                    pod.spec().getSecurityContext().getRunAsGroup(),
                    pod.spec().getSecurityContext().getFsGroup(),
                    "the files' group is the agent's");
        }
        assertEquals(
                Map.of("prometheus.io/scrape", "true", "prometheus.io/port", "7071", "prometheus.io/path", "/metrics"),
                pod.annotations(),
                workload);
        assertEquals("true", pod.labels().get("dedup.dev/agent"), workload);
        assertEquals(
                node ? "true" : null,
                pod.labels().get("dedup.dev/agent-token"),
                workload + ": the label that chooses the PodMonitor with the token");
        for (Container worker : pod.spec().getContainers()) {
            if (worker.getName().equals("dedup-agent")) {
                continue;
            }
            Map<String, EnvVar> env = pod.env(worker);
            assertEquals(List.of("DEDUP_URL"), List.copyOf(env.keySet()), workload + " " + worker.getName());
            assertEquals("http://127.0.0.1:7070", env.get("DEDUP_URL").getValue(), workload);
        }
    }

    /**
     * Each agent's pod is scraped by exactly one PodMonitor, on its ops port, with the read token where the agent has
     * tokens: Prometheus's namespace holds no token that claims or releases.
     */
    @Test
    void monitoringScrapesEveryAgentOnItsOpsPort_withTheTokenWhereTheAgentHasOne() {
        List<PodMonitor> monitors = Manifests.render("monitoring").stream()
                .map(Manifests::strict)
                .filter(PodMonitor.class::isInstance)
                .map(PodMonitor.class::cast)
                .toList();
        for (String workload : AGENT_WORKLOADS) {
            AgentPod pod = agentPod(workload);
            List<PodMonitor> scraping = monitors.stream()
                    .filter(m -> selects(m.getSpec().getSelector(), pod.labels()))
                    .toList();
            assertEquals(1, scraping.size(), workload + ": PodMonitors " + scraping);
            var endpoints = scraping.get(0).getSpec().getPodMetricsEndpoints();
            assertEquals(1, endpoints.size());
            assertEquals("/metrics", endpoints.get(0).getPath());
            assertEquals(
                    7071, pod.port(endpoints.get(0).getPort()), workload + ": the endpoint's port is the ops port");
            var auth = endpoints.get(0).getAuthorization();
            assertEquals(pod.hasToken(), auth != null, workload + ": the bearer token where the agent has one");
            if (auth != null) {
                assertEquals(
                        "dedup-agent-read/read-token",
                        auth.getCredentials().getName() + "/"
                                + auth.getCredentials().getKey());
            }
        }
    }

    /** Kubernetes' label selector: matchLabels and the matchExpressions operators. */
    static boolean selects(io.fabric8.kubernetes.api.model.LabelSelector selector, Map<String, String> labels) {
        Map<String, String> have = labels == null ? Map.of() : labels;
        if (selector.getMatchLabels() != null
                && !selector.getMatchLabels().entrySet().stream()
                        .allMatch(e -> e.getValue().equals(have.get(e.getKey())))) {
            return false;
        }
        for (var e : selector.getMatchExpressions()) {
            boolean ok = switch (e.getOperator()) {
                case "Exists" -> have.containsKey(e.getKey());
                case "DoesNotExist" -> !have.containsKey(e.getKey());
                case "In" -> e.getValues().contains(have.get(e.getKey()));
                case "NotIn" -> !e.getValues().contains(have.get(e.getKey()));
                default -> throw new AssertionError("operator " + e.getOperator());
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }

    /**
     * From outside the pod, Prometheus reaches the ops port alone; the node agents' workers their claim port, which
     * is the Service's target; nothing reaches a sidecar's claim port, which is on loopback.
     */
    @Test
    void networkPoliciesLetPrometheusToTheOpsPort_andNodeAgentWorkersToTheClaimPort() {
        assertEquals(
                List.of("monitoring -> [7071]"),
                ingress(policy("consumer")),
                "consumer: the claim API is the pod's own");
        assertEquals(
                List.of("agent-client -> [7070]", "monitoring -> [7071]"), ingress(policy("daemonset")), "daemonset");
        NetworkPolicy executors = policy("spark");
        assertEquals(
                Map.of("dedup.dev/agent", "true", "spark-role", "executor"),
                executors.getSpec().getPodSelector().getMatchLabels(),
                "spark: the executors with the agent");
        assertEquals(
                List.of("spark-app -> []", "monitoring -> [7071]"),
                ingress(executors),
                "spark: the application's pods on every port (block manager, shuffles), Prometheus the ops port");
        Service service = Manifests.render("daemonset").stream()
                .map(Manifests::strict)
                .filter(Service.class::isInstance)
                .map(Service.class::cast)
                .findFirst()
                .orElseThrow();
        assertEquals(1, service.getSpec().getPorts().size());
        assertEquals(7070, service.getSpec().getPorts().get(0).getPort());
        assertEquals(
                7070,
                agentPod("daemonset")
                        .port(service.getSpec()
                                .getPorts()
                                .get(0)
                                .getTargetPort()
                                .getStrVal()),
                "the Service sends workers to the claim port");
    }

    static NetworkPolicy policy(String dir) {
        return Manifests.render(dir).stream()
                .map(Manifests::strict)
                .filter(NetworkPolicy.class::isInstance)
                .map(NetworkPolicy.class::cast)
                .findFirst()
                .orElseThrow();
    }

    /** Each ingress rule as "who -> [ports]": who is agent-client (the workers) or monitoring (Prometheus). */
    static List<String> ingress(NetworkPolicy policy) {
        List<String> rules = new ArrayList<>();
        for (var rule : policy.getSpec().getIngress()) {
            List<String> who = new ArrayList<>();
            for (var peer : rule.getFrom()) {
                if (peer.getPodSelector() != null
                        && peer.getPodSelector().getMatchLabels() != null
                        && peer.getPodSelector().getMatchLabels().containsKey("dedup.dev/agent-client")) {
                    who.add("agent-client");
                } else if (peer.getNamespaceSelector() == null
                        && peer.getPodSelector() != null
                        && peer.getPodSelector().getMatchExpressions().size() == 1
                        && peer.getPodSelector()
                                .getMatchExpressions()
                                .get(0)
                                .getKey()
                                .equals("spark-role")
                        && peer.getPodSelector()
                                .getMatchExpressions()
                                .get(0)
                                .getOperator()
                                .equals("Exists")) {
                    who.add("spark-app");
                } else if (peer.getNamespaceSelector() != null
                        && "true"
                                .equals(peer.getNamespaceSelector()
                                        .getMatchLabels()
                                        .get("dedup.dev/monitoring"))) {
                    who.add("monitoring");
                } else {
                    who.add("other " + peer);
                }
            }
            rules.add(String.join(",", who) + " -> "
                    + rule.getPorts().stream()
                            .map(p -> String.valueOf(p.getPort().getIntVal()))
                            .toList());
        }
        return rules;
    }

    @TempDir
    static Path tmp;

    /**
     * The Redis Cluster's size is one number, the {@code replicas:} of its kustomization (pods = shards x 2): it
     * sets the StatefulSet's replicas and, as a string, the count the bootstrap Job waits for and joins. An
     * overlay that sets it changes those two fields and nothing else.
     */
    @Test
    void redisClusterSize_isOneNumber_theStatefulSetsPodsAndTheCountTheJobJoins() {
        List<JsonNode> shipped = Manifests.render("redis-cluster");
        assertEquals(6, clusterPods(shipped));
        List<JsonNode> ten = Manifests.kustomize(Manifests.overlay(tmp, """
                resources:
                  - ../redis-cluster
                replicas:
                  - name: dedup-redis-cluster
                    count: 10
                """));
        assertEquals(10, clusterPods(ten));
        assertEquals(withoutPodCount(shipped), withoutPodCount(ten), "the count changes nothing else");
    }

    /**
     * {@code plan --output kustomize} prints the overlay that runs its plan: against the shipped directory, it sets
     * the pods, each pod's memory (request and limit; the start script takes 70 % of the limit as maxmemory) and
     * its volume. The shipped directory's own figures are plan's for shards of 6 GB.
     */
    @Test
    void planPrintsTheRedisClusterOverlay_pods_memoryAndVolume() {
        List<JsonNode> tapjoy = Manifests.kustomize(
                Manifests.overlay(tmp, plan("--rate", "2M/min", "--window", "24h", "--output", "kustomize")));
        assertEquals(8, clusterPods(tapjoy), "4 masters with a replica each");
        StatefulSet set = only(tapjoy, StatefulSet.class);
        Container redis = KubernetesCommandLinesIT.container(set, "redis");
        assertEquals("34Gi", redis.getResources().getLimits().get("memory").toString());
        assertEquals("34Gi", redis.getResources().getRequests().get("memory").toString());
        var limit = redis.getEnv().stream()
                .filter(e -> e.getName().equals("MEMORY_LIMIT_BYTES"))
                .findFirst()
                .orElseThrow()
                .getValueFrom()
                .getResourceFieldRef();
        assertEquals("redis/limits.memory", limit.getContainerName() + "/" + limit.getResource());
        assertEquals(
                "70Gi",
                set.getSpec()
                        .getVolumeClaimTemplates()
                        .get(0)
                        .getSpec()
                        .getResources()
                        .getRequests()
                        .get("storage")
                        .toString());
        assertEquals(
                Manifests.render("redis-cluster"),
                Manifests.kustomize(Manifests.overlay(
                        tmp, plan("--rate", "1K/s", "--shard-maxmemory", "6GB", "--output", "kustomize"))),
                "the shipped directory is plan's overlay for 6 GB shards");
    }

    /**
     * The nodes reach each other on the clients' port and the cluster bus; the agents and the bootstrap Job reach
     * the clients' port alone. The Job's pods are not the StatefulSet's, and every agent that uses Redis is labelled
     * a client.
     */
    @Test
    void redisClusterNetworkPolicy_letsTheNodesUseTheBus_andAgentsAndTheJobTheClientPort() {
        List<JsonNode> rendered = Manifests.render("redis-cluster");
        StatefulSet set = only(rendered, StatefulSet.class);
        Job job = only(rendered, Job.class);
        Map<String, String> nodeLabels =
                set.getSpec().getTemplate().getMetadata().getLabels();
        Map<String, String> jobLabels =
                job.getSpec().getTemplate().getMetadata().getLabels();
        assertFalse(selects(set.getSpec().getSelector(), jobLabels), "the Job's pod is no node");
        List<String> containerPorts = KubernetesCommandLinesIT.container(set, "redis").getPorts().stream()
                .map(p -> p.getName() + ":" + p.getContainerPort())
                .toList();
        assertEquals(List.of("redis:6379", "cluster-bus:16379"), containerPorts);
        List<String> rules = new ArrayList<>();
        for (var rule : policy("redis-cluster").getSpec().getIngress()) {
            for (var peer : rule.getFrom()) {
                rules.add(redisPeer(peer, nodeLabels, jobLabels) + " -> "
                        + rule.getPorts().stream()
                                .map(p -> p.getPort().getStrVal())
                                .toList());
            }
        }
        assertEquals(List.of("nodes -> [redis, cluster-bus]", "agents -> [redis]", "job -> [redis]"), rules);
        for (String workload : List.of("spark", "consumer", "daemonset")) {
            assertEquals("true", agentPod(workload).labels().get("dedup.dev/redis-client"), workload);
        }
    }

    /**
     * Who a Redis NetworkPolicy's peer lets in: the tier's own pods ({@code nodes}) or its Job's, both of the policy's
     * namespace; {@code agents}, pods labelled {@code dedup.dev/redis-client} in namespaces labelled {@code
     * dedup.dev/redis-clients} (both in one peer: a pod's own label alone lets nobody in); else {@code other}.
     */
    static String redisPeer(
            io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer peer,
            Map<String, String> nodeLabels,
            Map<String, String> jobLabels) {
        if (peer.getIpBlock() != null || peer.getPodSelector() == null) {
            return "other " + peer;
        }
        if (peer.getNamespaceSelector() == null) {
            return selects(peer.getPodSelector(), nodeLabels)
                    ? "nodes"
                    : jobLabels != null && selects(peer.getPodSelector(), jobLabels) ? "job" : "other " + peer;
        }
        boolean agentPods = Map.of("dedup.dev/redis-client", "true")
                .equals(peer.getPodSelector().getMatchLabels());
        boolean agentNamespaces = Map.of("dedup.dev/redis-clients", "true")
                        .equals(peer.getNamespaceSelector().getMatchLabels())
                && peer.getNamespaceSelector().getMatchExpressions().isEmpty();
        return agentPods && agentNamespaces ? "agents" : "other " + peer;
    }

    /**
     * The Sentinel set's pods reach each other on both ports, and so do the agents: labelled pods in labelled
     * namespaces, never any pod that labels itself in any namespace.
     */
    @Test
    void redisNetworkPolicy_letsInTheSetsPods_andLabelledAgentsOfLabelledNamespaces() {
        List<JsonNode> rendered = Manifests.render("redis");
        StatefulSet set = only(rendered, StatefulSet.class);
        Map<String, String> podLabels =
                set.getSpec().getTemplate().getMetadata().getLabels();
        List<String> rules = new ArrayList<>();
        for (var rule : policy("redis").getSpec().getIngress()) {
            for (var peer : rule.getFrom()) {
                rules.add(redisPeer(peer, podLabels, null) + " -> "
                        + rule.getPorts().stream()
                                .map(p -> p.getPort().getStrVal())
                                .toList());
            }
        }
        assertEquals(List.of("nodes -> [redis, sentinel]", "agents -> [redis, sentinel]"), rules);
    }

    /** The StatefulSet's replicas, checked to be the count the Job's PODS reads: its pod's annotation, a string. */
    static int clusterPods(List<JsonNode> rendered) {
        StatefulSet set = only(rendered, StatefulSet.class);
        Job job = only(rendered, Job.class);
        JsonNode annotation = rendered.stream()
                .filter(d -> d.path("kind").asText().equals("Job"))
                .findFirst()
                .orElseThrow()
                .at("/spec/template/metadata/annotations/dedup.dev~1pods");
        assertTrue(annotation.isTextual(), "an annotation is a string for Kubernetes: " + annotation);
        assertEquals(String.valueOf(set.getSpec().getReplicas()), annotation.asText());
        EnvVar pods = KubernetesCommandLinesIT.container(job, "bootstrap").getEnv().stream()
                .filter(e -> e.getName().equals("PODS"))
                .findFirst()
                .orElseThrow();
        assertEquals(
                "metadata.annotations['dedup.dev/pods']",
                pods.getValueFrom().getFieldRef().getFieldPath());
        return set.getSpec().getReplicas();
    }

    static List<JsonNode> withoutPodCount(List<JsonNode> rendered) {
        return rendered.stream()
                .map(d -> {
                    var copy = d.deepCopy();
                    if (copy.path("kind").asText().equals("StatefulSet")) {
                        ((com.fasterxml.jackson.databind.node.ObjectNode) copy.get("spec")).remove("replicas");
                    }
                    if (copy.path("kind").asText().equals("Job")) {
                        ((com.fasterxml.jackson.databind.node.ObjectNode)
                                        copy.at("/spec/template/metadata/annotations"))
                                .remove("dedup.dev/pods");
                    }
                    return (JsonNode) copy;
                })
                .toList();
    }

    static <T extends HasMetadata> T only(List<JsonNode> rendered, Class<T> kind) {
        List<T> found = rendered.stream()
                .map(Manifests::strict)
                .filter(kind::isInstance)
                .map(kind::cast)
                .toList();
        assertEquals(1, found.size(), kind.getSimpleName() + "s: " + found);
        return found.get(0);
    }

    /** {@code java -jar dedup-agent.jar plan ARGS}: what it prints. */
    static String plan(String... args) {
        List<String> command = Tools.list(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar");
        command.add(Tools.agentJar().toString());
        command.add("plan");
        command.addAll(List.of(args));
        return Tools.run(Duration.ofSeconds(60), command).ok("plan").output();
    }

    @ParameterizedTest
    @MethodSource("kustomizations")
    void configMapsHoldNoSecret(String dir) {
        for (JsonNode doc : Manifests.render(dir)) {
            if (Manifests.strict(doc) instanceof ConfigMap cm) {
                for (Map.Entry<String, String> e : Objects.requireNonNullElse(cm.getData(), Map.<String, String>of())
                        .entrySet()) {
                    String where = dir + " ConfigMap " + cm.getMetadata().getName() + " key " + e.getKey();
                    assertFalse(SECRET_NAME.matcher(e.getKey()).matches(), where + ": a secret's name");
                    assertFalse(CREDENTIALS_IN_URI.matcher(e.getValue()).find(), where + ": credentials in a URI");
                    for (String line : e.getValue().split("\n")) {
                        String l = line.strip();
                        assertFalse(
                                l.matches("(?i)(requirepass|masterauth|sentinel auth-pass \\S+)\\s+[^$\\s].*"),
                                where + ": a literal password: " + l);
                        assertFalse(l.matches("(?i)user \\S+ .*>[^$\\s].*"), where + ": a literal ACL password: " + l);
                    }
                }
            }
        }
    }
}
