package dev.dedup.client;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** An {@link SSLContext} that trusts the certificates of one PEM file, and those alone. */
final class TrustedCertificates {

    private TrustedCertificates() {}

    /**
     * @throws IllegalArgumentException naming {@code setting} and the file when it cannot be read or holds no
     *     certificate
     */
    static SSLContext context(String setting, Path file) {
        Collection<? extends Certificate> certificates;
        try (InputStream in = Files.newInputStream(file)) {
            certificates = CertificateFactory.getInstance("X.509").generateCertificates(in);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    setting + ": cannot read " + file + " (" + e.getClass().getSimpleName() + ": " + e.getMessage()
                            + ")",
                    e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException(
                    setting + ": " + file + " is not a PEM file of certificates (" + e.getMessage() + ")", e);
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException(setting + ": " + file + " holds no certificate");
        }
        try {
            KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
            store.load(null, null);
            int n = 0;
            for (Certificate c : certificates) {
                store.setCertificateEntry("ca-" + n++, c);
            }
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, trust.getTrustManagers(), null);
            return context;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(setting + ": cannot trust the certificates of " + file + ": " + e, e);
        }
    }
}
