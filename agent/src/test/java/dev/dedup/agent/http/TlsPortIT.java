package dev.dedup.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.EmbeddedStoreOptions;
import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.OpsOptions;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.testing.TestCertificates;
import dev.dedup.client.DedupClient;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Both ports over TLS ({@code --tls-cert-file}, {@code --tls-key-file}) with certificates made by {@code openssl}:
 * {@code curl --cacert} and the Java client with its CA file claim; a plain request is refused; a renewed
 * certificate is served without a restart, and a key that does not match it changes nothing.
 */
class TlsPortIT {

    @TempDir
    Path dir;

    private Agent start(Path cert, Path key) {
        return Agent.start(new AgentOptions(
                HttpOptions.builder()
                        .port(0)
                        .eventLoops(2)
                        .shutdownGrace(Duration.ofSeconds(1))
                        .ops(new OpsOptions("127.0.0.1", 0))
                        .tls(cert, key)
                        .build(),
                new EmbeddedStoreOptions(dir.resolve("data"), 1 << 12, 8),
                WindowOptions.defaults()));
    }

    @Test
    void clientsThatTrustTheAuthorityClaimOverTls_andAPlainRequestIsRefused() throws Exception {
        TestCertificates authority = TestCertificates.make(dir.resolve("pki"));
        Path[] pair = authority.issue();
        try (Agent agent = start(pair[0], pair[1])) {
            String body = "{\"ns\":\"tls\",\"items\":[{\"id\":\"curl-1\",\"owner\":\"p0:1\"}]}";
            assertEquals(
                    "{\"verdicts\":[\"new\"]}",
                    curl(
                            "--cacert",
                            authority.ca().toString(),
                            "-H",
                            "Content-Type: application/json",
                            "--data",
                            body,
                            "https://127.0.0.1:" + agent.port() + "/v1/claims"));
            assertEquals(
                    "{\"status\":\"live\"}",
                    curl(
                            "--cacert",
                            authority.ca().toString(),
                            "https://127.0.0.1:" + agent.opsPort() + "/health/live"),
                    "the ops port speaks TLS too");

            DedupClient trusting = DedupClient.builder(URI.create("https://127.0.0.1:" + agent.port()))
                    .caFile(authority.ca())
                    .build();
            assertEquals(
                    List.of(Verdict.RETRY, Verdict.NEW),
                    trusting.claim("tls", List.of(new Item("curl-1", "p0:1"), new Item("java-1", "p0:1"))));
            DedupClient fromEnvironment = DedupClient.builderFromEnvironment(Map.of(
                            "DEDUP_URL",
                            "https://localhost:" + agent.port(),
                            "DEDUP_CA_FILE",
                            authority.ca().toString()))
                    .build();
            assertEquals(List.of(Verdict.DUPLICATE), fromEnvironment.claim("tls", List.of(new Item("java-1", "p1:1"))));

            DedupClient untrusting = DedupClient.create(URI.create("https://127.0.0.1:" + agent.port()));
            assertThrows(
                    javax.net.ssl.SSLHandshakeException.class,
                    () -> untrusting.claim("tls", List.of(new Item("x", "p0:1"))),
                    "the JVM's own authorities do not know this one");

            String plain = plainHttp(agent.port());
            assertFalse(plain.startsWith("HTTP/1.1 200"), "a plain request gets no answer: " + plain);
        }
    }

    @Test
    void aRenewedCertificateIsServedWithoutARestart_andAKeyThatDoesNotMatchChangesNothing() throws Exception {
        TestCertificates authority = TestCertificates.make(dir.resolve("pki"));
        Path[] first = authority.issue();
        Path[] second = authority.issue();
        Path secret = Files.createDirectories(dir.resolve("secret"));
        mount(secret, first[0], first[1], 1);
        Path cert = Files.createSymbolicLink(secret.resolve("tls.crt"), Path.of("..data/tls.crt"));
        Path key = Files.createSymbolicLink(secret.resolve("tls.key"), Path.of("..data/tls.key"));
        try (Agent agent = start(cert, key)) {
            assertEquals(serial(first[0]), servedSerial(agent.port(), authority.ca()));

            mount(secret, second[0], second[1], 2);
            awaitSerial(agent.port(), authority.ca(), serial(second[0]));
            assertEquals(serial(second[0]), servedSerial(agent.opsPort(), authority.ca()), "on the ops port too");

            mount(secret, second[0], first[1], 3); // the first key beside the second certificate: they do not match
            awaitMetric(agent, "dedup_tls_reloads_total{result=\"refused\"} 1.0");
            assertEquals(serial(second[0]), servedSerial(agent.port(), authority.ca()), "the pair before is served");
            assertTrue(metrics(agent).contains("dedup_tls_reloads_total{result=\"applied\"} 1.0"), metrics(agent));
        }
    }

    /**
     * Puts a certificate and key in {@code secret} as the kubelet updates a Secret's volume: both in a new directory,
     * then the {@code ..data} link moved onto it in one rename.
     */
    private static void mount(Path secret, Path cert, Path key, int version) throws Exception {
        Path files = Files.createDirectories(secret.resolve("..v" + version));
        Files.copy(cert, files.resolve("tls.crt"));
        Files.copy(key, files.resolve("tls.key"));
        Path link = Files.createSymbolicLink(
                secret.resolve("..data_tmp"), Path.of(files.getFileName().toString()));
        Files.move(link, secret.resolve("..data"), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Test
    void aCertificateWithoutItsKeyIsRefused_namingBoth() {
        ConfigException e = assertThrows(
                ConfigException.class,
                () -> HttpOptions.builder().tlsCertFile(dir.resolve("tls.crt")).build());
        assertEquals(
                "tls-cert-file: " + dir.resolve("tls.crt") + " is given without tls-key-file; give both, or neither",
                e.getMessage());
    }

    private static BigInteger serial(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in))
                    .getSerialNumber();
        }
    }

    /** The serial of the certificate a new TLS connection to {@code port} is shown. */
    private static BigInteger servedSerial(int port, Path ca) throws Exception {
        java.security.KeyStore store = java.security.KeyStore.getInstance(java.security.KeyStore.getDefaultType());
        store.load(null, null);
        try (InputStream in = Files.newInputStream(ca)) {
            store.setCertificateEntry(
                    "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    private static void awaitSerial(int port, Path ca, BigInteger serial) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!servedSerial(port, ca).equals(serial) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertEquals(serial, servedSerial(port, ca), "within 15 s of the files' change");
    }

    private void awaitMetric(Agent agent, String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!metrics(agent).contains(line) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertTrue(metrics(agent).contains(line), line);
    }

    private String metrics(Agent agent) throws Exception {
        return curl("-k", "https://127.0.0.1:" + agent.port() + "/metrics");
    }

    /** A request in plain HTTP to the TLS port: what comes back, if anything, before the connection closes. */
    private static String plainHttp(int port) throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(socket.getInputStream().readNBytes(64), StandardCharsets.ISO_8859_1);
        } catch (java.net.SocketException | java.net.SocketTimeoutException e) {
            return "(" + e.getClass().getSimpleName() + ")";
        }
    }

    private String curl(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("curl", "-sS", "--max-time", "10"));
        cmd.addAll(List.of(args));
        Path out = dir.resolve("curl.out");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "curl hung");
        String text = Files.readString(out);
        assertEquals(0, p.exitValue(), () -> String.join(" ", cmd) + ": " + text);
        return text;
    }
}
