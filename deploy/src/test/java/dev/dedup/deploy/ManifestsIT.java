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
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kustomization under deploy/kubernetes renders, every object parses strictly as its kind, and the
 * workloads keep the security rules: non-root, read-only root filesystem, no capability, no privilege
 * escalation, seccomp RuntimeDefault; secrets only from Secrets, never in a ConfigMap or a literal.
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
                assertEquals("dedup-agent:0.1.0", c.getImage(), at);
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
