package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * Paths of the repository and the agent's jar, and external commands run to completion. A missing tool
 * fails the test with what to install: these tests never skip.
 */
final class Tools {

    /** The repository root (the tests run in deploy/). */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    static final Path DEPLOY = ROOT.resolve("deploy");
    static final Path KUBERNETES = DEPLOY.resolve("kubernetes");
    static final Path AGENT_JAR = ROOT.resolve("agent/target/dedup-agent.jar");
    /** The CycloneDX SBOM the build writes beside the jar. */
    static final Path AGENT_SBOM = ROOT.resolve("agent/target/dedup-agent.cdx.json");

    private Tools() {}

    /** The product's version: the root POM's {@code <version>}, which every module inherits. */
    static String version() {
        try {
            Element project = javax.xml.parsers.DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(ROOT.resolve("pom.xml").toFile())
                    .getDocumentElement();
            for (Node n = project.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element && ((Element) n).getTagName().equals("version")) {
                    return n.getTextContent().trim();
                }
            }
            throw new IllegalStateException(ROOT.resolve("pom.xml") + " has no <version>");
        } catch (javax.xml.parsers.ParserConfigurationException | org.xml.sax.SAXException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Fails unless {@code command} is on the PATH, naming the Debian package that brings it (or how to get it). */
    static void require(String command, String debianPackage) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                return;
            }
        }
        String how =
                debianPackage.contains(" ") ? debianPackage : "apt-get install -y " + debianPackage + "; .ci/run does";
        fail(command + " is not on the PATH: install it (" + how + ") — these tests do not skip");
    }

    static Path agentJar() {
        if (!Files.isRegularFile(AGENT_JAR)) {
            fail(AGENT_JAR + " is missing: build it first (mvn -B -DskipTests package, or mvn -B verify)");
        }
        return AGENT_JAR;
    }

    static Path agentSbom() {
        if (!Files.isRegularFile(AGENT_SBOM)) {
            fail(AGENT_SBOM + " is missing: build it first (mvn -B -DskipTests package, or mvn -B verify)");
        }
        return AGENT_SBOM;
    }

    /**
     * A Java 25 {@code java}, the image's runtime, for running the image's command line on this machine: the
     * system property {@code deploy.java25}, else the first {@code /usr/lib/jvm/*}{@code /bin/java} whose
     * {@code release} file says 25.
     */
    static Path java25() {
        String given = System.getProperty("deploy.java25");
        if (given != null && !given.isBlank()) {
            return Path.of(given);
        }
        try (java.util.stream.Stream<Path> homes = Files.list(Path.of("/usr/lib/jvm"))) {
            return homes.sorted()
                    .filter(home -> Files.isExecutable(home.resolve("bin/java")))
                    .filter(home -> {
                        try {
                            return Files.readString(home.resolve("release")).contains("JAVA_VERSION=\"25");
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .map(home -> home.resolve("bin/java"))
                    .findFirst()
                    .orElseThrow();
        } catch (IOException | java.util.NoSuchElementException e) {
            fail("no Java 25 under /usr/lib/jvm (the image's runtime, whose JVM options these tests run): install"
                    + " one (Temurin 25, or Debian trixie's openjdk-25-jre-headless), or name its java with"
                    + " -Ddeploy.java25=/path/to/bin/java");
            throw new AssertionError(e);
        }
    }

    /** The result of a command run to its end. */
    record Result(int exit, String output) {
        Result ok(String what) {
            if (exit != 0) {
                fail(what + " exited " + exit + ":\n" + output);
            }
            return this;
        }
    }

    static Result run(Duration timeout, List<String> command) {
        return run(timeout, command, null, Map.of());
    }

    /** Runs {@code command} in {@code dir} with extra environment, stdout and stderr together. */
    static Result run(Duration timeout, List<String> command, Path dir, Map<String, String> env) {
        try {
            Path out = Files.createTempFile("deploy-cmd-", ".log");
            try {
                ProcessBuilder pb =
                        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
                if (dir != null) {
                    pb.directory(dir.toFile());
                }
                pb.environment().putAll(env);
                Process p = pb.start();
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    fail(String.join(" ", command) + " did not end within " + timeout + ":\n"
                            + Files.readString(out, StandardCharsets.UTF_8));
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static List<String> list(String... words) {
        return new ArrayList<>(List.of(words));
    }

    static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits for a condition that a process reaches by itself. */
    static void await(Duration timeout, String what, java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not reached within " + timeout + ": " + what);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
