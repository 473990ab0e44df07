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
 * its restart policy, probes and environment.
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
        assertEquals("http://127.0.0.1:7070", env(executor).get("DEDUP_URL").getValue());
        assertEquals(
                "dedup-agent",
                env(executor)
                        .get("DEDUP_TOKEN")
                        .getValueFrom()
                        .getSecretKeyRef()
                        .getName());

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
        assertEquals("dedup", agent.getStartupProbe().getHttpGet().getPort().getStrVal());
        assertEquals(7070, agent.getPorts().get(0).getContainerPort());
        assertEquals(List.of("--host", "0.0.0.0", "--port", "7070"), agent.getArgs());
        Map<String, EnvVar> env = env(agent);
        assertEquals(
                "token", env.get("DEDUP_TOKEN").getValueFrom().getSecretKeyRef().getKey());
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
        return c.getEnv().stream().collect(Collectors.toMap(EnvVar::getName, e -> e));
    }
}
