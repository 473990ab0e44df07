package dev.dedup.agent.http;

import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.value.ConfigException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The certificate chain and key both ports serve ({@code --tls-cert-file}, {@code --tls-key-file}), as the files
 * held them when last read. {@link #reload} reads them again; the agent calls it every
 * {@link HttpOptions#TOKEN_FILE_CHECK} and hands what changed to every server. The key is never logged.
 */
public final class ServerCertificate {

    /** A certificate chain and its key, as read together. */
    private record Pair(byte[] cert, byte[] key) {
        PemKeyCertOptions options() {
            return new PemKeyCertOptions().setCertValue(Buffer.buffer(cert)).setKeyValue(Buffer.buffer(key));
        }
    }

    /** A pair read from the files that differs from the one served: {@link #accept} it once the servers took it. */
    public static final class Candidate {
        private final Pair pair;

        private Candidate(Pair pair) {
            this.pair = pair;
        }

        /** What the servers are handed. */
        public PemKeyCertOptions keyCert() {
            return pair.options();
        }
    }

    private final Path certFile;
    private final Path keyFile;
    /** The pair every server serves. */
    private volatile Pair served;

    /**
     * The pair of {@code options}, read and checked now; null when they name none (plain HTTP).
     *
     * @throws ConfigException when a file cannot be read, or the key is not the certificate's
     */
    public static ServerCertificate of(HttpOptions options, io.vertx.core.Vertx vertx) {
        if (!options.tls()) {
            return null;
        }
        ServerCertificate pair = new ServerCertificate(options.tlsCertFile(), options.tlsKeyFile());
        requireMatching(vertx, pair.keyCert());
        return pair;
    }

    private ServerCertificate(Path certFile, Path keyFile) {
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.served = new Pair(read("tls-cert-file", certFile), read("tls-key-file", keyFile));
    }

    /**
     * Throws a {@link ConfigException} unless the key and the certificate load and belong together: Vert.x serves a
     * certificate beside any key, and every handshake then fails. The key signs a challenge that the certificate's
     * public key must verify.
     */
    private static void requireMatching(io.vertx.core.Vertx vertx, PemKeyCertOptions pair) {
        javax.net.ssl.X509KeyManager keys;
        try {
            keys = (javax.net.ssl.X509KeyManager)
                    pair.getKeyManagerFactory(vertx).getKeyManagers()[0];
        } catch (Exception e) {
            throw new ConfigException(
                    "tls-key-file, tls-cert-file: the pair does not load as PEM (" + e.getMessage() + ")");
        }
        for (String type : new String[] {"RSA", "EC", "EdDSA", "Ed25519"}) {
            String[] aliases = keys.getServerAliases(type, null);
            if (aliases == null) {
                continue;
            }
            for (String alias : aliases) {
                java.security.PrivateKey key = keys.getPrivateKey(alias);
                java.security.cert.X509Certificate[] chain = keys.getCertificateChain(alias);
                if (key != null && chain != null && chain.length > 0 && signs(key, chain[0].getPublicKey())) {
                    return;
                }
            }
        }
        throw new ConfigException("tls-key-file: the key is not the private key of the first certificate of"
                + " tls-cert-file; give the key the certificate was issued for");
    }

    private static boolean signs(java.security.PrivateKey key, java.security.PublicKey certified) {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448, EdDSA
        };
        try {
            byte[] challenge = new byte[32];
            new java.security.SecureRandom().nextBytes(challenge);
            java.security.Signature sign = java.security.Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(challenge);
            byte[] signature = sign.sign();
            java.security.Signature verify = java.security.Signature.getInstance(algorithm);
            verify.initVerify(certified);
            verify.update(challenge);
            return verify.verify(signature);
        } catch (java.security.GeneralSecurityException e) {
            return false;
        }
    }

    /** What Vert.x serves: the PEM values as read, not the paths (so that a change is a different value). */
    PemKeyCertOptions keyCert() {
        return served.options();
    }

    /**
     * Reads both files again. Returns the pair they hold when it differs from the one served and the two belong
     * together, else null; a pair that does not is refused ({@link ConfigException}). Nothing changes until the
     * caller {@link #accept}s the candidate, so that a pair a server refused is tried again at the next look.
     */
    public Candidate reload(io.vertx.core.Vertx vertx) {
        byte[] c = read("tls-cert-file", certFile);
        byte[] k = read("tls-key-file", keyFile);
        Pair now = served;
        if (Arrays.equals(c, now.cert()) && Arrays.equals(k, now.key())
                || !Arrays.equals(c, read("tls-cert-file", certFile))) {
            return null; // unchanged, or changing while read: the next look takes it
        }
        Pair pair = new Pair(c, k);
        requireMatching(vertx, pair.options());
        return new Candidate(pair);
    }

    /** The servers serve {@code candidate} now. */
    public void accept(Candidate candidate) {
        served = candidate.pair;
    }

    private static byte[] read(String setting, Path file) {
        try {
            byte[] bytes = Files.readAllBytes(file);
            if (bytes.length == 0) {
                throw new ConfigException(setting + ": " + file + " is empty");
            }
            return bytes;
        } catch (IOException e) {
            throw new ConfigException(setting + ": cannot read " + file + " ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }
}
