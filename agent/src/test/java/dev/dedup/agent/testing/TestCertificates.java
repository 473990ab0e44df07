package dev.dedup.agent.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A certificate authority made with {@code openssl} in a test's folder, and server certificates it signs for
 * {@code 127.0.0.1} and {@code localhost}: PEM files, as a Kubernetes TLS Secret holds them. What a TLS-only
 * redis-server, a sentinel or the agent's own ports present, and what clients are told to trust.
 */
public final class TestCertificates {

    private final Path dir;
    private final Path ca;
    private final Path caKey;
    private final Path cert;
    private final Path key;
    private int issued;

    private TestCertificates(Path dir) {
        this.dir = dir;
        this.ca = dir.resolve("ca.crt");
        this.caKey = dir.resolve("ca.key");
        this.cert = dir.resolve("server.crt");
        this.key = dir.resolve("server.key");
    }

    /** An authority and a first server certificate ({@link #cert}, {@link #key}) in {@code dir}, valid two days. */
    public static TestCertificates make(Path dir) throws IOException, InterruptedException {
        TestCertificates c = new TestCertificates(Files.createDirectories(dir));
        c.openssl(
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                c.caKey.toString(),
                "-out",
                c.ca.toString(),
                "-days",
                "2",
                "-subj",
                "/CN=dedup test CA");
        c.sign(c.cert, c.key);
        return c;
    }

    /** The authority's certificate (PEM): what clients trust. */
    public Path ca() {
        return ca;
    }

    /** The first server certificate (PEM). */
    public Path cert() {
        return cert;
    }

    /** The first server certificate's private key (PEM). */
    public Path key() {
        return key;
    }

    /** Another server certificate and its key, signed by the same authority: {@code [certificate, key]}. */
    public Path[] issue() throws IOException, InterruptedException {
        int n = ++issued;
        Path[] pair = {dir.resolve("server-" + n + ".crt"), dir.resolve("server-" + n + ".key")};
        sign(pair[0], pair[1]);
        return pair;
    }

    /**
     * A redis-server's arguments to speak TLS on {@code tlsPort} with the first certificate, without asking clients
     * for theirs. Its plain port stays open on loopback for the test's own commands; the agent is given the TLS port.
     */
    public List<String> serverArgs(int tlsPort) {
        return List.of(
                "--tls-port", String.valueOf(tlsPort),
                "--tls-cert-file", cert.toString(),
                "--tls-key-file", key.toString(),
                "--tls-ca-cert-file", ca.toString(),
                "--tls-auth-clients", "no");
    }

    private void sign(Path certOut, Path keyOut) throws IOException, InterruptedException {
        Path csr = dir.resolve(certOut.getFileName() + ".csr");
        Path ext = Files.writeString(dir.resolve("ext.cnf"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
        openssl(
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                keyOut.toString(),
                "-out",
                csr.toString(),
                "-subj",
                "/CN=127.0.0.1");
        openssl(
                "x509",
                "-req",
                "-in",
                csr.toString(),
                "-CA",
                ca.toString(),
                "-CAkey",
                caKey.toString(),
                "-CAcreateserial",
                "-out",
                certOut.toString(),
                "-days",
                "2",
                "-extfile",
                ext.toString());
    }

    private void openssl(String... args) throws IOException, InterruptedException {
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
