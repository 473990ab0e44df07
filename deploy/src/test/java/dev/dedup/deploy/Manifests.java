package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PodMonitor;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The manifests as Kubernetes reads them: rendered by {@code kubectl kustomize}, each document bound to the
 * fabric8 model class of its kind with nothing left over. A field the kind does not have (a typo, a wrong
 * level) fails, and so does a value the model turns into something else than was written.
 */
final class Manifests {

    static final ObjectMapper YAML = YAMLMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            // "7070" where the kind has a number is an error for the API server: here too
            .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    static final Map<String, Class<? extends HasMetadata>> KINDS = Map.ofEntries(
            Map.entry("v1/ConfigMap", ConfigMap.class),
            Map.entry("v1/Service", Service.class),
            Map.entry("v1/Pod", Pod.class),
            Map.entry("v1/PersistentVolumeClaim", io.fabric8.kubernetes.api.model.PersistentVolumeClaim.class),
            Map.entry("apps/v1/Deployment", Deployment.class),
            Map.entry("apps/v1/DaemonSet", DaemonSet.class),
            Map.entry("apps/v1/StatefulSet", StatefulSet.class),
            Map.entry("batch/v1/Job", io.fabric8.kubernetes.api.model.batch.v1.Job.class),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class),
            Map.entry("policy/v1/PodDisruptionBudget", PodDisruptionBudget.class),
            Map.entry("monitoring.coreos.com/v1/PodMonitor", PodMonitor.class),
            Map.entry("monitoring.coreos.com/v1/PrometheusRule", PrometheusRule.class));

    /** The kustomize directories under deploy/kubernetes. */
    static final List<String> KUSTOMIZATIONS =
            List.of("spark", "consumer", "consumer-embedded", "daemonset", "redis", "redis-cluster", "monitoring");

    private Manifests() {}

    /** {@code kubectl kustomize deploy/kubernetes/<dir>}, as documents. */
    static List<JsonNode> render(String dir) {
        return RENDERED.computeIfAbsent(dir, Manifests::kustomize);
    }

    private static final Map<String, List<JsonNode>> RENDERED = new java.util.concurrent.ConcurrentHashMap<>();

    private static List<JsonNode> kustomize(String dir) {
        return kustomize(Tools.KUBERNETES.resolve(dir));
    }

    /** {@code kubectl kustomize <dir>}, as documents: any kustomization, an overlay the test wrote. */
    static List<JsonNode> kustomize(Path dir) {
        Tools.require(
                "kubectl",
                "kubectl v1.27+ (kustomize v5; Debian bookworm has none that recent: Kubernetes' own packages)");
        String yaml = Tools.run(Duration.ofMinutes(2), Tools.list("kubectl", "kustomize", dir.toString()))
                .ok("kubectl kustomize " + dir)
                .output();
        return documents(yaml);
    }

    /**
     * A copy of deploy/kubernetes under {@code tmp}, with {@code kustomization} (which names its bases as
     * {@code ../<dir>}, as an overlay beside them does) in a directory of its own there; returns that directory.
     * kustomize takes no absolute path to a base, and the tests write nothing into the sources.
     */
    static Path overlay(Path tmp, String kustomization) {
        try {
            Path copy = tmp.resolve("kubernetes");
            if (!Files.exists(copy)) {
                try (var files = Files.walk(Tools.KUBERNETES)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Path to = copy.resolve(Tools.KUBERNETES.relativize(f).toString());
                        if (Files.isDirectory(f)) {
                            Files.createDirectories(to);
                        } else {
                            Files.copy(f, to);
                        }
                    }
                }
            }
            Path dir = Files.createTempDirectory(copy, "overlay-");
            Files.writeString(dir.resolve("kustomization.yaml"), kustomization);
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<JsonNode> documents(String yaml) {
        try {
            List<JsonNode> docs = new ArrayList<>();
            Iterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml);
            while (it.hasNext()) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isNull() && !doc.isEmpty()) {
                    docs.add(doc);
                }
            }
            return docs;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<JsonNode> file(Path path) {
        return documents(Tools.read(path));
    }

    /** Binds a document to its kind's model class, strictly, and checks that it says back what it read. */
    static HasMetadata strict(JsonNode doc) {
        String key = doc.path("apiVersion").asText() + "/" + doc.path("kind").asText();
        Class<? extends HasMetadata> type = KINDS.get(key);
        assertNotNull(type, "no model for " + key + " (add it to Manifests.KINDS if it is meant to be there)");
        HasMetadata object;
        try {
            object = YAML.treeToValue(doc, type);
        } catch (IOException e) {
            throw new AssertionError(key + " " + name(doc) + " is not a valid " + type.getSimpleName() + ": " + e, e);
        }
        List<String> extra = new ArrayList<>();
        leftovers(object, key, extra, Collections.newSetFromMap(new IdentityHashMap<>()));
        assertTrue(extra.isEmpty(), key + " " + name(doc) + " has fields its kind does not have: " + extra);
        List<String> differences = new ArrayList<>();
        diff("", normalized(doc), normalized(YAML.valueToTree(object)), differences);
        assertTrue(differences.isEmpty(), key + " " + name(doc) + " does not read back as written: " + differences);
        return object;
    }

    static String name(JsonNode doc) {
        return doc.path("metadata").path("name").asText("(unnamed)");
    }

    /** Every {@code additionalProperties} of the model's objects: what the kind has no field for. */
    private static void leftovers(Object o, String path, List<String> out, Set<Object> seen) {
        if (o == null || !seen.add(o)) {
            return;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object e : c) {
                leftovers(e, path + "[" + i++ + "]", out, seen);
            }
            return;
        }
        if (o instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                leftovers(e.getValue(), path + "." + e.getKey(), out, seen);
            }
            return;
        }
        if (!o.getClass().getName().startsWith("io.fabric8.")) {
            return;
        }
        for (Method getter : o.getClass().getMethods()) {
            if (getter.getParameterCount() != 0
                    || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get")
                    || getter.getName().equals("getClass")) {
                continue;
            }
            Object value;
            try {
                value = getter.invoke(o);
            } catch (ReflectiveOperationException e) {
                continue;
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> m && !m.isEmpty()) {
                    out.add(path + ": " + m.keySet());
                }
                continue;
            }
            leftovers(value, path + "." + getter.getName().substring(3), out, seen);
        }
    }

    /**
     * Where {@code back} (the model written out) differs from {@code read}, but for the apiVersion and kind
     * that the model adds to embedded objects (a StatefulSet's volumeClaimTemplates).
     */
    private static void diff(String path, JsonNode read, JsonNode back, List<String> out) {
        if (read.isObject() && back.isObject()) {
            read.fieldNames().forEachRemaining(f -> {
                if (!back.has(f)) {
                    out.add(path + "." + f + " dropped");
                } else {
                    diff(path + "." + f, read.get(f), back.get(f), out);
                }
            });
            back.fieldNames().forEachRemaining(f -> {
                if (!read.has(f) && !(!path.isEmpty() && (f.equals("apiVersion") || f.equals("kind")))) {
                    out.add(path + "." + f + " added: " + back.get(f));
                }
            });
        } else if (read.isArray() && back.isArray() && read.size() == back.size()) {
            for (int i = 0; i < read.size(); i++) {
                diff(path + "[" + i + "]", read.get(i), back.get(i), out);
            }
        } else if (!read.equals(back)) {
            out.add(path + ": " + read + " became " + back);
        }
    }

    /** The tree without empty objects and lists, which the model leaves out when writing. */
    private static JsonNode normalized(JsonNode node) {
        if (node.isObject()) {
            var out = YAML.createObjectNode();
            node.fields().forEachRemaining(e -> {
                JsonNode v = normalized(e.getValue());
                if (!((v.isObject() || v.isArray()) && v.isEmpty()) && !v.isNull()) {
                    out.set(e.getKey(), v);
                }
            });
            return out;
        }
        if (node.isArray()) {
            var out = YAML.createArrayNode();
            node.forEach(e -> out.add(normalized(e)));
            return out;
        }
        if (node.isIntegralNumber()) {
            return YAML.getNodeFactory().numberNode(node.longValue());
        }
        return node;
    }

    static void failUnless(boolean condition, String message) {
        if (!condition) {
            fail(message);
        }
    }
}
