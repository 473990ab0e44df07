package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The docker CLI against a running engine, for the image tests: builds the agent's image from a clean tree,
 * and removes every container and volume it made when closed.
 */
final class Docker implements AutoCloseable {

    /**
     * The base image the tests build on: a Debian trixie with openjdk-25-jre-headless (Java 25, the image's
     * runtime; bookworm has none).
     */
    static final String BASE_IMAGE = System.getProperty("deploy.baseImage", "dedup-java25-base:test");

    /** Where the base image's tar is kept between runs (made by mmdebstrap, about 40 s, 400 MB). */
    static final Path BASE_CACHE = Path.of(System.getProperty("deploy.baseCache", "/var/cache/dedup-deploy"))
            .resolve("trixie-openjdk-25-jre-headless.tar");

    /** Where {@link #buildImage} puts the tested jar in the build context. */
    private static final String PREBUILT_JAR = "dist/dedup-agent.jar";

    private final String prefix = "dedup-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<String> containers = new ArrayList<>();
    private final List<String> volumes = new ArrayList<>();
    private final List<String> networks = new ArrayList<>();

    Docker() {
        Tools.require("docker", "docker.io");
        Tools.Result info = docker(Duration.ofSeconds(30), "info", "--format", "{{.ServerVersion}}");
        if (info.exit() != 0) {
            fail("no Docker engine answers (docker info: " + info.output().strip()
                    + "): start dockerd (apt-get install -y docker.io; .ci/run starts it)");
        }
    }

    static Tools.Result docker(Duration timeout, String... args) {
        List<String> cmd = Tools.list("docker");
        cmd.addAll(List.of(args));
        return Tools.run(timeout, cmd);
    }

    static String ok(Duration timeout, String... args) {
        return docker(timeout, args)
                .ok("docker " + String.join(" ", args))
                .output()
                .strip();
    }

    /** A name unique to this run, remembered for removal. */
    String container(String role) {
        String name = prefix + "-" + role;
        containers.add(name);
        return name;
    }

    String volume(String role) {
        String name = prefix + "-" + role;
        volumes.add(name);
        ok(Duration.ofSeconds(30), "volume", "create", name);
        return name;
    }

    /** The name {@link #network} gave to {@code role}. */
    String networkName(String role) {
        return prefix + "-" + role;
    }

    String network(String role) {
        String name = prefix + "-" + role;
        networks.add(name);
        ok(Duration.ofSeconds(30), "network", "create", name);
        return name;
    }

    /** The base image, from the engine, else from the cached tar, else made by mmdebstrap (and cached). */
    static synchronized String baseImage() {
        if (!BASE_IMAGE.equals("dedup-java25-base:test")
                && docker(Duration.ofSeconds(30), "image", "inspect", BASE_IMAGE)
                                .exit()
                        != 0) {
            fail("base image " + BASE_IMAGE + " is not in the engine: docker pull it first");
        }
        return debianImage(BASE_IMAGE, BASE_CACHE, "trixie", "openjdk-25-jre-headless");
    }

    /**
     * The build image the quickstart's from-source build runs Maven in ({@code BUILD_IMAGE}): a Debian bookworm
     * with openjdk-17-jdk-headless and maven, which trusts the certificate authorities this machine adds to
     * Debian's ({@code /usr/local/share/ca-certificates}), so that Maven reaches Central from inside a build as it
     * does from the machine, through a proxy that signs TLS with its own authority included.
     */
    static synchronized String mavenImage() {
        List<String> hooks = new ArrayList<>();
        Path localCas = Path.of("/usr/local/share/ca-certificates");
        if (Files.isDirectory(localCas)) {
            hooks.add("--customize-hook=copy-in " + localCas + " /usr/local/share");
            hooks.add("--customize-hook=chroot \"$1\" update-ca-certificates");
        }
        return debianImage(
                "dedup-maven-base:test",
                BASE_CACHE.resolveSibling("bookworm-openjdk-17-jdk-headless-maven.tar"),
                "bookworm",
                "openjdk-17-jdk-headless,ca-certificates-java,maven",
                hooks);
    }

    /** A Debian bookworm image with redis-server (and redis-cli), for a Redis container beside a pod. */
    static synchronized String redisImage() {
        return debianImage(
                "dedup-redis-base:test",
                BASE_CACHE.resolveSibling("bookworm-redis-server.tar"),
                "bookworm",
                "redis-server");
    }

    /** A Debian bookworm image with python3, for a Python worker in a pod. */
    static synchronized String pythonImage() {
        return debianImage(
                "dedup-python-base:test", BASE_CACHE.resolveSibling("bookworm-python3.tar"), "bookworm", "python3");
    }

    /**
     * {@code tag} from the engine, else imported from {@code cache}, else made by {@code mmdebstrap
     * --variant=apt --include=<packages> <suite>} into {@code cache} first (Debian's mirrors are reachable
     * where image registries are not).
     */
    private static String debianImage(String tag, Path cache, String suite, String packages) {
        return debianImage(tag, cache, suite, packages, List.of());
    }

    /** As above, with mmdebstrap's {@code hooks} (options such as {@code --customize-hook=...}) as well. */
    private static String debianImage(String tag, Path cache, String suite, String packages, List<String> hooks) {
        if (docker(Duration.ofSeconds(30), "image", "inspect", tag).exit() == 0) {
            return tag;
        }
        try {
            if (!Files.isRegularFile(cache)) {
                Tools.require("mmdebstrap", "mmdebstrap");
                Files.createDirectories(cache.getParent());
                // mmdebstrap picks the output's format by its extension: keep .tar
                Path tmp = cache.resolveSibling("partial-" + cache.getFileName());
                List<String> cmd = Tools.list("mmdebstrap", "--quiet", "--variant=apt", "--include=" + packages);
                cmd.addAll(hooks);
                cmd.addAll(List.of(suite, tmp.toString()));
                Tools.run(Duration.ofMinutes(10), cmd).ok("mmdebstrap");
                Files.move(tmp, cache, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ok(Duration.ofMinutes(5), "import", cache.toString(), tag);
        return tag;
    }

    /**
     * Builds deploy/Dockerfile as a user would from a clean clone, but on the jar {@code mvn package} made and
     * the other tests tested: the context holds the files git tracks or would track (the working tree's
     * versions) and that jar as {@code dist/dedup-agent.jar}, which {@code AGENT_JAR} names, with its SBOM beside it, so that Maven does
     * not run in the build and the base image serves as {@code BUILD_IMAGE}. QuickstartIT builds from the
     * sources.
     */
    static synchronized String buildImage(String tag) {
        String base = baseImage();
        Path context;
        try {
            context = Files.createTempDirectory("deploy-context-");
            Tools.Result files = Tools.run(
                    Duration.ofSeconds(60),
                    Tools.list(
                            "git",
                            "-C",
                            Tools.ROOT.toString(),
                            "ls-files",
                            "--cached",
                            "--others",
                            "--exclude-standard"));
            files.ok("git ls-files (the image is built from the repository's files)");
            for (String f : files.output().split("\n")) {
                Path src = Tools.ROOT.resolve(f);
                if (f.isBlank() || !Files.isRegularFile(src)) {
                    continue; // deleted in the working tree
                }
                Path dst = context.resolve(f);
                Files.createDirectories(dst.getParent());
                Files.copy(src, dst);
            }
            Path jar = context.resolve(PREBUILT_JAR);
            Files.createDirectories(jar.getParent());
            Files.copy(Tools.agentJar(), jar);
            Files.copy(Tools.agentSbom(), jar.resolveSibling(Tools.AGENT_SBOM.getFileName()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Tools.Result before = docker(Duration.ofSeconds(30), "image", "inspect", "-f", "{{.Id}}", tag);
        Tools.run(
                        Duration.ofMinutes(5),
                        Tools.list(
                                "docker",
                                "build",
                                "--build-arg",
                                "BASE_IMAGE=" + base,
                                "--build-arg",
                                "BUILD_IMAGE=" + base,
                                "--build-arg",
                                "AGENT_JAR=" + PREBUILT_JAR,
                                "-f",
                                "deploy/Dockerfile",
                                "-t",
                                tag,
                                "."),
                        context,
                        java.util.Map.of())
                .ok("docker build");
        Tools.run(Duration.ofSeconds(60), Tools.list("rm", "-rf", context.toString()));
        // the image this tag named before, now untagged: removed, so that runs do not pile images up
        if (before.exit() == 0 && !before.output().strip().equals(inspect(tag, "{{.Id}}"))) {
            docker(Duration.ofSeconds(60), "rmi", before.output().strip());
        }
        return tag;
    }

    /** The container's IP address on the default bridge. */
    static String ip(String container) {
        return ok(Duration.ofSeconds(30), "inspect", "-f", "{{.NetworkSettings.IPAddress}}", container);
    }

    static String inspect(String container, String format) {
        return ok(Duration.ofSeconds(30), "inspect", "-f", format, container);
    }

    static String logs(String container) {
        return docker(Duration.ofSeconds(30), "logs", container).output();
    }

    @Override
    public void close() {
        for (String c : containers) {
            docker(Duration.ofSeconds(60), "rm", "-f", "-v", c);
        }
        for (String v : volumes) {
            docker(Duration.ofSeconds(60), "volume", "rm", "-f", v);
        }
        for (String n : networks) {
            docker(Duration.ofSeconds(60), "network", "rm", n);
        }
    }
}
