package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HTTPGetAction;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A container of a manifest turned into the process the kubelet would start: its command (the image's
 * ENTRYPOINT when it has none) and arguments, its environment resolved as the kubelet resolves it
 * ({@code envFrom} ConfigMaps, then {@code env} in order, with {@code $(VAR)} expanded from what came
 * before; Secrets from the values the test plays; the downward API from the pod the test plays), and its
 * probes. What differs on this machine is said explicitly: {@link #replace} swaps an in-cluster address,
 * port or path for a local one, in arguments and environment values alike.
 */
final class PodContainer {

    final Container container;
    private final Map<String, ConfigMap> configMaps;
    private final Map<String, String> secrets;
    private final Map<String, String> fields;
    private final Map<String, String> replacements = new LinkedHashMap<>();
    private final Map<String, String> overrides = new LinkedHashMap<>();

    /**
     * @param secrets "secretName/key" to value: what the operator put in the Secrets
     * @param fields  downward API field paths ("metadata.name", "status.podIP") to this pod's values
     */
    PodContainer(
            Container container, List<JsonNode> rendered, Map<String, String> secrets, Map<String, String> fields) {
        this.container = container;
        this.secrets = secrets;
        this.fields = fields;
        this.configMaps = new LinkedHashMap<>();
        for (JsonNode doc : rendered) {
            if (Manifests.strict(doc) instanceof ConfigMap cm) {
                configMaps.put(cm.getMetadata().getName(), cm);
            }
        }
    }

    /**
     * Writes the files of the container's Secret volumes of {@code pod} as the kubelet would (each item's key, from
     * the values the test plays, at its path, with the volume's mode) under {@code root}, and replaces each mount
     * path by its local folder.
     */
    PodContainer mountSecrets(io.fabric8.kubernetes.api.model.PodSpec pod, java.nio.file.Path root)
            throws java.io.IOException {
        for (var mount : container.getVolumeMounts()) {
            var volume = pod.getVolumes().stream()
                    .filter(v -> v.getName().equals(mount.getName()))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no volume " + mount.getName() + " in the pod"));
            if (volume.getSecret() == null) {
                continue;
            }
            java.nio.file.Path folder = java.nio.file.Files.createDirectories(root.resolve(mount.getName()));
            String secret = volume.getSecret().getSecretName();
            for (var item : volume.getSecret().getItems()) {
                String value = secrets.get(secret + "/" + item.getKey());
                assertNotNull(value, "the test plays no Secret " + secret + "/" + item.getKey());
                java.nio.file.Path file = folder.resolve(item.getPath());
                java.nio.file.Files.writeString(file, value);
                Integer mode = volume.getSecret().getDefaultMode();
                if (mode != null) {
                    java.util.Set<java.nio.file.attribute.PosixFilePermission> perms =
                            java.util.EnumSet.noneOf(java.nio.file.attribute.PosixFilePermission.class);
                    java.nio.file.attribute.PosixFilePermission[] bits =
                            java.nio.file.attribute.PosixFilePermission
                                    .values(); // OWNER_READ first, OTHERS_EXECUTE last
                    for (int i = 0; i < 9; i++) {
                        if ((mode & (0400 >> i)) != 0) {
                            perms.add(bits[i]);
                        }
                    }
                    java.nio.file.Files.setPosixFilePermissions(file, perms);
                }
            }
            replace(mount.getMountPath(), folder.toString());
        }
        return this;
    }

    /** Replaces {@code what} by {@code with} wherever it appears in the arguments and environment values. */
    PodContainer replace(String what, String with) {
        replacements.put(what, with);
        return this;
    }

    /**
     * Gives the environment variable {@code name} the local {@code value} (a port, an address, a path of this
     * machine), in place of the manifest's, or adds it.
     */
    PodContainer override(String name, String value) {
        overrides.put(name, value);
        return this;
    }

    private String replaced(String s) {
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            s = s.replace(r.getKey(), r.getValue());
        }
        return s;
    }

    /** The environment the kubelet would give the container (after {@link #replace}). */
    Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        for (EnvFromSource from : container.getEnvFrom()) {
            assertNotNull(from.getConfigMapRef(), "envFrom other than a ConfigMap");
            ConfigMap cm = configMaps.get(from.getConfigMapRef().getName());
            assertNotNull(cm, "ConfigMap " + from.getConfigMapRef().getName() + " is not rendered beside it");
            cm.getData().forEach((k, v) -> env.put(k, replaced(v)));
        }
        for (EnvVar e : container.getEnv()) {
            String value;
            if (e.getValueFrom() == null) {
                value = expand(e.getValue() == null ? "" : e.getValue(), env);
            } else if (e.getValueFrom().getSecretKeyRef() != null) {
                var ref = e.getValueFrom().getSecretKeyRef();
                value = secrets.get(ref.getName() + "/" + ref.getKey());
                assertNotNull(value, "the test plays no Secret " + ref.getName() + " key " + ref.getKey());
            } else if (e.getValueFrom().getFieldRef() != null) {
                value = fields.get(e.getValueFrom().getFieldRef().getFieldPath());
                assertNotNull(
                        value,
                        "the test plays no field "
                                + e.getValueFrom().getFieldRef().getFieldPath());
            } else if (e.getValueFrom().getResourceFieldRef() != null) {
                String resource = e.getValueFrom().getResourceFieldRef().getResource();
                Quantity q = resource.startsWith("limits.")
                        ? container.getResources().getLimits().get(resource.substring(7))
                        : container.getResources().getRequests().get(resource.substring(9));
                assertNotNull(q, "no " + resource + " on " + container.getName());
                value = Quantity.getAmountInBytes(q).toBigInteger().toString();
            } else {
                fail("env " + e.getName() + ": a source the test does not play");
                return env;
            }
            env.put(e.getName(), overrides.containsKey(e.getName()) ? overrides.get(e.getName()) : replaced(value));
        }
        env.putAll(overrides);
        return env;
    }

    /** The command line: the container's command, else the image's entrypoint, then its arguments. */
    List<String> commandLine(List<String> imageEntrypoint) {
        Map<String, String> env = env();
        List<String> cmd = new ArrayList<>();
        for (String c : container.getCommand().isEmpty() ? imageEntrypoint : container.getCommand()) {
            cmd.add(replaced(expand(c, env)));
        }
        for (String a : container.getArgs()) {
            cmd.add(replaced(expand(a, env)));
        }
        return cmd;
    }

    private static final Pattern VAR = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

    /** Kubernetes' {@code $(VAR)} expansion: a defined variable is replaced, an undefined one left as is. */
    static String expand(String s, Map<String, String> env) {
        Matcher m = VAR.matcher(s);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String v = env.get(m.group(1));
            m.appendReplacement(out, Matcher.quoteReplacement(v != null ? v : m.group()));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The container port a probe's named or numbered port stands for. */
    int probePort(Probe probe) {
        HTTPGetAction get = probe.getHttpGet();
        assertNotNull(get, container.getName() + ": an HTTP probe");
        if (get.getPort().getIntVal() != null) {
            return get.getPort().getIntVal();
        }
        return container.getPorts().stream()
                .filter(p -> get.getPort().getStrVal().equals(p.getName()))
                .findFirst()
                .orElseThrow(() ->
                        new AssertionError("no port named " + get.getPort().getStrVal()))
                .getContainerPort();
    }

    /** The container's probes, present ones only. */
    List<Probe> probes() {
        List<Probe> out = new ArrayList<>();
        for (Probe p :
                new Probe[] {container.getStartupProbe(), container.getReadinessProbe(), container.getLivenessProbe()
                }) {
            if (p != null) {
                out.add(p);
            }
        }
        return out;
    }
}
