package dev.dedup.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The CycloneDX SBOM the build writes beside the agent's jar ({@code agent/target/dedup-agent.cdx.json}) lists what
 * the jar holds: the agent's direct dependencies at the versions the POMs set, every artifact whose Maven metadata is
 * in the jar, and none of the Netty modules the agent's POM leaves out. Read from the build's output, no network.
 */
class SbomTest {

    /** The agent's direct runtime dependencies and the root POM's property that sets each one's version. */
    static final Map<String, String> DIRECT = Map.of(
            "io.vertx:vertx-core", "vertx.version",
            "io.vertx:vertx-web", "vertx.version",
            "io.lettuce:lettuce-core", "lettuce.version",
            "com.github.ben-manes.caffeine:caffeine", "caffeine.version",
            "io.micrometer:micrometer-core", "micrometer.version",
            "io.micrometer:micrometer-registry-prometheus", "micrometer.version");

    /** Left out of the agent (agent/pom.xml says why); a native library of Netty's is never shipped either. */
    static final List<String> LEFT_OUT = List.of(
            "netty-codec-http3",
            "netty-handler-proxy",
            "netty-codec-socks",
            "netty-tcnative-classes",
            "netty-tcnative-boringssl-static",
            "netty-codec-native-quic",
            "netty-transport-native-epoll",
            "netty-transport-native-io_uring",
            "netty-transport-native-kqueue");

    /**
     * Carried inside another artifact rather than depended on, so not a component of their own: netty-common holds a
     * copy of jctools-core (io.netty.util.internal.shaded.org.jctools), metadata included.
     */
    static final Set<String> INSIDE_ANOTHER = Set.of("org.jctools:jctools-core");

    @Test
    void listsTheAgentsDirectDependenciesAtThePomsVersions() {
        JsonNode bom = sbom();
        String agent = bom.path("metadata").path("component").path("bom-ref").asText();
        assertTrue(agent.startsWith("pkg:maven/dev.dedup/dedup-agent@" + Tools.version()), agent);
        Set<String> direct = new HashSet<>();
        for (JsonNode d : bom.path("dependencies")) {
            if (d.path("ref").asText().equals(agent)) {
                d.path("dependsOn").forEach(ref -> direct.add(ref.asText()));
            }
        }
        Map<String, String> listed = components(bom);
        for (Map.Entry<String, String> dep : DIRECT.entrySet()) {
            String version = rootProperty(dep.getValue());
            String[] ga = dep.getKey().split(":");
            assertEquals(version, listed.get(dep.getKey()), dep.getKey() + " in " + Tools.AGENT_SBOM);
            String purl = "pkg:maven/" + ga[0] + "/" + ga[1] + "@" + version + "?type=jar";
            assertTrue(direct.contains(purl), purl + " is not among the agent's direct dependencies: " + direct);
        }
    }

    @Test
    void listsNoModuleLeftOutOfTheJarAndNoTestDependency() {
        List<String> wrong = new ArrayList<>();
        for (String ga : components(sbom()).keySet()) {
            String artifact = ga.substring(ga.indexOf(':') + 1);
            if (LEFT_OUT.contains(artifact) || ga.startsWith("org.junit") || ga.startsWith("com.networknt:")) {
                wrong.add(ga);
            }
        }
        assertEquals(List.of(), wrong, "listed in " + Tools.AGENT_SBOM);
    }

    /** Each artifact whose pom.properties the shade plugin copied into the jar is listed, at that version. */
    @Test
    void listsEveryArtifactTheJarCarriesMetadataOf() throws IOException {
        Map<String, String> listed = components(sbom());
        List<String> missing = new ArrayList<>();
        int seen = 0;
        try (ZipFile jar = new ZipFile(Tools.agentJar().toFile())) {
            for (ZipEntry e : jar.stream().toList()) {
                if (!e.getName().startsWith("META-INF/maven/") || !e.getName().endsWith("/pom.properties")) {
                    continue;
                }
                Properties p = new Properties();
                try (InputStream in = jar.getInputStream(e)) {
                    p.load(in);
                }
                String ga = p.getProperty("groupId") + ":" + p.getProperty("artifactId");
                if (ga.equals("dev.dedup:dedup-agent") || INSIDE_ANOTHER.contains(ga)) {
                    continue;
                }
                seen++;
                if (!p.getProperty("version").equals(listed.get(ga))) {
                    missing.add(ga + ":" + p.getProperty("version") + " (listed: " + listed.get(ga) + ")");
                }
            }
        }
        assertTrue(seen >= 20, "artifacts with metadata in the jar: " + seen);
        assertEquals(List.of(), missing, "in the jar, not in " + Tools.AGENT_SBOM);
    }

    private static JsonNode sbom() {
        try {
            return new ObjectMapper().readTree(Tools.agentSbom().toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** group:name to version, for every component of {@code bom}. */
    private static Map<String, String> components(JsonNode bom) {
        Map<String, String> out = new HashMap<>();
        for (JsonNode c : bom.path("components")) {
            out.put(
                    c.path("group").asText() + ":" + c.path("name").asText(),
                    c.path("version").asText());
        }
        assertTrue(out.size() >= 20, "components in " + Tools.AGENT_SBOM + ": " + out.size());
        return out;
    }

    private static String rootProperty(String name) {
        try {
            Element project = javax.xml.parsers.DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(Tools.ROOT.resolve("pom.xml").toFile())
                    .getDocumentElement();
            Node properties = project.getElementsByTagName("properties").item(0);
            for (Node n = properties.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (n instanceof Element && ((Element) n).getTagName().equals(name)) {
                    return n.getTextContent().trim();
                }
            }
            throw new IllegalStateException("the root pom.xml has no <" + name + ">");
        } catch (javax.xml.parsers.ParserConfigurationException | org.xml.sax.SAXException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
