package dev.dedup.deploy;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A pod on this machine, made as the kubelet makes one: a pause container holds the network namespace, and the
 * pod's containers join it ({@code --network container:}), so that they reach each other on 127.0.0.1 and share one
 * address on the Docker network; the pod reaches other networks (a Redis container) as a pod reaches a Service.
 */
final class LocalPod {

    final String pause;
    /** The pod's address, where the kubelet's probes and Prometheus come from. */
    final String ip;

    private LocalPod(String pause, String ip) {
        this.pause = pause;
        this.ip = ip;
    }

    /** The pause container, from {@code image}, connected to {@code network} as well (null for none). */
    static LocalPod start(Docker docker, String image, String role, String network) {
        String pause = docker.container(role + "-pause");
        Docker.ok(
                Duration.ofSeconds(60),
                "run",
                "-d",
                "--name",
                pause,
                "--read-only",
                "--cap-drop",
                "ALL",
                "--entrypoint",
                "sleep",
                image,
                "infinity");
        if (network != null) {
            Docker.ok(Duration.ofSeconds(30), "network", "connect", network, pause);
        }
        return new LocalPod(pause, Docker.ip(pause));
    }

    /** {@code docker run} options that put a container in this pod, locked down as the manifests' containers are. */
    List<String> joining(String name, Map<String, String> env) {
        List<String> run = Tools.list(
                "run",
                "--name",
                name,
                "--network",
                "container:" + pause,
                "--read-only",
                "--cap-drop",
                "ALL",
                "--security-opt",
                "no-new-privileges");
        env.forEach((k, v) -> {
            run.add("-e");
            run.add(k + "=" + v);
        });
        return run;
    }

    /**
     * {@code -v} options that mount the code of {@code classes} (a directory of classes, or a jar) read-only into a
     * container, and the class path they make there, last.
     */
    static List<String> classpathMounts(List<Class<?>> classes) {
        List<String> cp = new ArrayList<>();
        List<String> out = new ArrayList<>();
        for (Class<?> c : classes) {
            Path where;
            try {
                where = Path.of(
                        c.getProtectionDomain().getCodeSource().getLocation().toURI());
            } catch (URISyntaxException e) {
                throw new IllegalStateException(e);
            }
            String inside = "/worker/" + cp.size() + (where.toString().endsWith(".jar") ? "/classes.jar" : "");
            out.add("-v");
            out.add(where + ":" + inside + ":ro");
            cp.add(inside);
        }
        out.add(String.join(":", cp));
        return out;
    }
}
