package dev.dedup.agent.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority and a server certificate it signed for {@code 127.0.0.1} and {@code localhost}, made with
 * {@code openssl} in a test's folder: what a TLS-only redis-server or sentinel presents, and what the agent is told to
 * trust ({@code --redis-ca-file}).
 *
 * @param ca   the authority's certificate (PEM)
 * @param cert the server's certificate (PEM)
 * @param key  the server's private key (PEM)
 */
public record TestCertificates(Path ca, Path cert, Path key) {

    /** Makes them in {@code dir}, valid for two days. */
    public static TestCertificates make(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        TestCertificates c =
                new TestCertificates(dir.resolve("ca.crt"), dir.resolve("server.crt"), dir.resolve("server.key"));
        Path caKey = dir.resolve("ca.key");
        Path csr = dir.resolve("server.csr");
        Path ext = dir.resolve("ext.cnf");
        Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        openssl(
                dir,
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                caKey.toString(),
                "-out",
                c.ca().toString(),
                "-days",
                "2",
                "-subj",
                "/CN=dedup test CA");
        openssl(
                dir,
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                c.key().toString(),
                "-out",
                csr.toString(),
                "-subj",
                "/CN=127.0.0.1");
        openssl(
                dir,
                "x509",
                "-req",
                "-in",
                csr.toString(),
                "-CA",
                c.ca().toString(),
                "-CAkey",
                caKey.toString(),
                "-CAcreateserial",
                "-out",
                c.cert().toString(),
                "-days",
                "2",
                "-extfile",
                ext.toString());
        return c;
    }

    /**
     * A redis-server's arguments to speak TLS on {@code tlsPort} with this certificate, without asking clients for
     * theirs. Its plain port stays open on loopback for the test's own commands; the agent is given the TLS port.
     */
    public List<String> serverArgs(int tlsPort) {
        return List.of(
                "--tls-port", String.valueOf(tlsPort),
                "--tls-cert-file", cert.toString(),
                "--tls-key-file", key.toString(),
                "--tls-ca-cert-file", ca.toString(),
                "--tls-auth-clients", "no");
    }

    private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("openssl"));
        cmd.addAll(List.of(args));
        Path log = dir.resolve("openssl.log");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException("openssl hung: " + String.join(" ", args));
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException("openssl " + String.join(" ", args) + ": " + Files.readString(log));
        }
    }
}
