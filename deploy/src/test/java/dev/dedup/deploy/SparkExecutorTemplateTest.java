package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.spark.SparkConf;
import org.apache.spark.deploy.k8s.KubernetesUtils;
import org.apache.spark.deploy.k8s.SparkPod;
import org.junit.jupiter.api.Test;
import scala.Option;

/**
 * Spark's own loader ({@code KubernetesUtils.loadPodFromTemplate}, what spark-submit runs on
 * {@code spark.kubernetes.executor.podTemplateFile}) accepts the executor template, picks the container named
 * by {@code spark.kubernetes.executor.podTemplateContainerName}, and keeps the agent as a native sidecar with
 * its restart policy, probes and environment: the claim API on loopback without a token, where the executor's
 * {@code DEDUP_URL} points, and the probes on the ops port.
 */
class SparkExecutorTemplateTest {

    @Test
    void sparksLoaderKeepsTheNativeSidecar() {
        SparkConf conf = new SparkConf(false)
                .set("spark.kubernetes.executor.podTemplateFile", template())
                .set("spark.kubernetes.executor.podTemplateContainerName", "executor");
        SparkPod loaded;
        try (KubernetesClient client = new KubernetesClientBuilder().build()) {
            loaded = KubernetesUtils.loadPodFromTemplate(client, template(), Option.apply("executor"), conf);
        }
        Container executor = loaded.container();
        assertEquals("executor", executor.getName());
        // what the clients read (DedupClient.fromEnvironment(), DedupClient()): the agent on loopback, no token
        assertEquals(List.of("DEDUP_URL"), List.copyOf(env(executor).keySet()));
        assertEquals("http://127.0.0.1:7070", env(executor).get("DEDUP_URL").getValue());

        Pod pod = loaded.pod();
        // selectSparkContainer takes the executor container out of the pod; the sidecar stays
        assertTrue(
                pod.getSpec().getContainers().isEmpty(),
                pod.getSpec().getContainers().toString());
        List<Container> init = pod.getSpec().getInitContainers();
        assertEquals(1, init.size());
        Container agent = init.get(0);
        assertEquals("dedup-agent", agent.getName());
        assertEquals("Always", agent.getRestartPolicy(), "a native sidecar");
        assertEquals("/health/ready", agent.getStartupProbe().getHttpGet().getPath());
        assertEquals("/health/ready", agent.getReadinessProbe().getHttpGet().getPath());
        assertEquals("/health/live", agent.getLivenessProbe().getHttpGet().getPath());
        // the claim API on loopback, where the executor's DEDUP_URL points; probes and scrapes on the ops port
        assertEquals(List.of("--host", "127.0.0.1", "--port", "7070", "--ops-port", "7071"), agent.getArgs());
        assertEquals(1, agent.getPorts().size(), "the claim port is not a port of the pod");
        assertEquals("dedup-ops", agent.getPorts().get(0).getName());
        assertEquals(7071, agent.getPorts().get(0).getContainerPort());
        for (var probe : List.of(agent.getStartupProbe(), agent.getReadinessProbe(), agent.getLivenessProbe())) {
            assertEquals("dedup-ops", probe.getHttpGet().getPort().getStrVal());
        }
        assertEquals("7071", pod.getMetadata().getAnnotations().get("prometheus.io/port"));
        Map<String, EnvVar> env = env(agent);
        assertEquals(
                List.of("DEDUP_REDIS"), List.copyOf(env.keySet()), "no DEDUP_TOKEN: the claim API is loopback only");
        assertEquals(
                "uri", env.get("DEDUP_REDIS").getValueFrom().getSecretKeyRef().getKey());
        assertEquals(
                "dedup-agent-spark", agent.getEnvFrom().get(0).getConfigMapRef().getName());
        assertEquals(Boolean.TRUE, agent.getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals(Boolean.TRUE, agent.getSecurityContext().getRunAsNonRoot());
        assertEquals(
                List.of("ALL"), agent.getSecurityContext().getCapabilities().getDrop());
        assertNotNull(agent.getResources().getLimits().get("memory"));
        assertEquals("true", pod.getMetadata().getLabels().get("dedup.dev/agent"));
        assertEquals(
                "RuntimeDefault",
                pod.getSpec().getSecurityContext().getSeccompProfile().getType());
    }

    private static String template() {
        return Tools.KUBERNETES.resolve("spark/executor-pod-template.yaml").toString();
    }

    private static Map<String, EnvVar> env(Container c) {
        return c.getEnv().stream()
                .collect(Collectors.toMap(EnvVar::getName, e -> e, (a, b) -> a, java.util.LinkedHashMap::new));
    }
}
