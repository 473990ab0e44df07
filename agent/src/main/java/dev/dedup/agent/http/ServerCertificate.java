package dev.dedup.agent.http;

import dev.dedup.agent.config.ConfigException;
import dev.dedup.agent.config.HttpOptions;
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

    private final Path certFile;
    private final Path keyFile;
    private volatile byte[] cert;
    private volatile byte[] key;

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
        this.cert = read("tls-cert-file", certFile);
        this.key = read("tls-key-file", keyFile);
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
        return new PemKeyCertOptions().setCertValue(Buffer.buffer(cert)).setKeyValue(Buffer.buffer(key));
    }

    /**
     * Reads both files again. Returns the new pair when either changed and the two belong together, else null; a
     * pair that does not is refused ({@link ConfigException}) and the pair before stays.
     */
    public PemKeyCertOptions reload(io.vertx.core.Vertx vertx) {
        byte[] c = read("tls-cert-file", certFile);
        byte[] k = read("tls-key-file", keyFile);
        if (Arrays.equals(c, cert) && Arrays.equals(k, key) || !Arrays.equals(c, read("tls-cert-file", certFile))) {
            return null; // unchanged, or changing while read: the next look takes it
        }
        PemKeyCertOptions pair =
                new PemKeyCertOptions().setCertValue(Buffer.buffer(c)).setKeyValue(Buffer.buffer(k));
        requireMatching(vertx, pair);
        cert = c;
        key = k;
        return pair;
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
