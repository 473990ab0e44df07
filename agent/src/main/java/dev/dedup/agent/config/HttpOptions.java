package dev.dedup.agent.config;

import dev.dedup.agent.config.value.Bounds;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.Tokens;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The HTTP endpoint.
 *
 * @param host         address to bind (loopback unless configured)
 * @param port         port to bind; 0 picks a free one (tests)
 * @param maxBatch     most items one request may carry (413 above)
 * @param maxBody      most bytes one request body may have (413 above)
 * @param idleTimeout  a connection that sends nothing this long is closed (slow clients)
 * @param eventLoops   HTTP server instances, one per event loop
 * @param shutdownGrace how long SIGTERM waits for requests in flight
 * @param token        bearer token every request but the probes ({@code /health/live}, {@code /health/ready}) must
 *                     carry; null for none
 * @param tokenFile    a file of one or two such tokens, re-read when it changes, instead of {@code token}; null for
 *                     none
 * @param readToken    a bearer token that reads {@code /metrics} and {@code /v1/stats} and nothing else; null for none
 * @param readTokenFile a file of one or two read tokens, re-read when it changes, instead of {@code readToken}
 * @param insecureBind allow a non-loopback {@code host} without a token
 * @param ops          a port of its own for the operations endpoints, besides this one; null for none
 * @param maxConnections connections held open at once, over both ports; one more is closed when accepted
 * @param tlsCertFile  a PEM certificate chain: both ports speak TLS with it (and {@code tlsKeyFile}), re-read when it
 *                     changes; null for plain HTTP
 * @param tlsKeyFile   the PEM private key of {@code tlsCertFile}; null with it
 */
public record HttpOptions(
        String host,
        int port,
        int maxBatch,
        long maxBody,
        Duration idleTimeout,
        int eventLoops,
        Duration shutdownGrace,
        String token,
        Path tokenFile,
        String readToken,
        Path readTokenFile,
        boolean insecureBind,
        OpsOptions ops,
        int maxConnections,
        Path tlsCertFile,
        Path tlsKeyFile) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 7070;
    public static final int DEFAULT_MAX_BATCH = 10_000;
    public static final long DEFAULT_MAX_BODY = 8L << 20;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(10);
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    /** How often the token files are looked at for a change. */
    public static final Duration TOKEN_FILE_CHECK = Duration.ofSeconds(2);

    /** A port to bind, the claim port's or the operations port's: 0 picks a free one. */
    public static final Bounds<Integer> PORT_BOUNDS = Bounds.ints(0, 65535);

    public static final Bounds<Integer> MAX_BATCH_BOUNDS = Bounds.ints(1, 1_000_000);
    /** Up to 1 GiB: bodies are held in memory whole. */
    public static final Bounds<Long> MAX_BODY_BOUNDS = Bounds.sizes(64, 1L << 30);

    public static final Bounds<Duration> IDLE_TIMEOUT_BOUNDS = Bounds.durationsFrom(Duration.ofSeconds(1));
    public static final Bounds<Integer> EVENT_LOOPS_BOUNDS = Bounds.ints(1, 256);
    public static final Bounds<Duration> SHUTDOWN_GRACE_BOUNDS = Bounds.durationsFrom(Duration.ZERO);
    public static final Bounds<Integer> MAX_CONNECTIONS_BOUNDS = Bounds.ints(1, 1_000_000);

    public HttpOptions {
        ConfigException.require(host != null && !host.isBlank(), "host", host, "give an address to bind");
        PORT_BOUNDS.check("port", port);
        MAX_BATCH_BOUNDS.check("max-batch", maxBatch);
        MAX_BODY_BOUNDS.check("max-body", maxBody);
        IDLE_TIMEOUT_BOUNDS.check("idle-timeout", idleTimeout);
        EVENT_LOOPS_BOUNDS.check("event-loops", eventLoops);
        SHUTDOWN_GRACE_BOUNDS.check("shutdown-grace", shutdownGrace);
        MAX_CONNECTIONS_BOUNDS.check("max-connections", maxConnections);
        List<String> claimTokens = tokens("token", token, "token-file", tokenFile);
        List<String> readTokens = tokens("read-token", readToken, "read-token-file", readTokenFile);
        if (readTokens.stream().anyMatch(claimTokens::contains)) {
            throw new ConfigException("read-token: a read token is also a claim token (token); give readers a token"
                    + " of their own, which cannot claim or release");
        }
        if (claimTokens.isEmpty() && !insecureBind && !isLoopback(host)) {
            throw new ConfigException("host: " + host + " is not a loopback address; set --token or --token-file"
                    + " (workers then send Authorization: Bearer <token>) or --insecure-bind to accept requests from"
                    + " anyone who can reach it (for probes and scrapers alone, keep host on loopback and set"
                    + " --ops-port)");
        }
        if ((tlsCertFile == null) != (tlsKeyFile == null)) {
            throw new ConfigException(
                    tlsCertFile == null
                            ? "tls-key-file: " + tlsKeyFile + " is given without tls-cert-file; give both, or neither"
                            : "tls-cert-file: " + tlsCertFile
                                    + " is given without tls-key-file; give both, or neither");
        }
        for (Path file : new Path[] {tlsCertFile, tlsKeyFile}) {
            if (file != null && !java.nio.file.Files.isReadable(file)) {
                throw new ConfigException(
                        (file == tlsCertFile ? "tls-cert-file: " : "tls-key-file: ") + file + " cannot be read");
            }
        }
        if (ops != null && ops.port() != 0 && ops.port() == port) {
            throw new ConfigException("ops-port: " + port + " is also the claim port (port); give the operations"
                    + " endpoints another port, or no ops-port to serve them on the claim port alone");
        }
    }

    /**
     * The tokens of a setting given as a value or as a file (never both), each checked ({@link Tokens}); the file is
     * read once here, so that a bad one stops the start.
     */
    private static List<String> tokens(String setting, String value, String fileSetting, Path file) {
        if (value != null && file != null) {
            throw new ConfigException(
                    fileSetting + ": " + file + " is given with " + setting + " as well; give one of" + " them");
        }
        if (value != null) {
            Tokens.requireStrong(setting, value);
            return List.of(value);
        }
        return file == null ? List.of() : new ArrayList<>(Tokens.readFile(fileSetting, file));
    }

    /** Whether both ports speak TLS. */
    public boolean tls() {
        return tlsCertFile != null;
    }

    /** {@code https} with TLS, else {@code http}. */
    public String scheme() {
        return tls() ? "https" : "http";
    }

    /** Whether the claim API wants a token: {@code token} or {@code tokenFile} is set. */
    public boolean claimTokenSet() {
        return token != null || tokenFile != null;
    }

    /** Whether any token is set: {@code /metrics} and {@code /v1/stats} then want one. */
    public boolean anyTokenSet() {
        return claimTokenSet() || readToken != null || readTokenFile != null;
    }

    /** Whether {@code host} is a loopback address; a ConfigException when it cannot be resolved. */
    public static boolean isLoopback(String host) {
        try {
            return java.net.InetAddress.getByName(host).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            throw new ConfigException("host: " + host + " cannot be resolved");
        }
    }

    /** Never prints the token. */
    @Override
    public String toString() {
        return "HttpOptions[host=" + host + ", port=" + port + ", maxBatch=" + maxBatch + ", maxBody=" + maxBody
                + ", idleTimeout=" + idleTimeout + ", eventLoops=" + eventLoops + ", shutdownGrace=" + shutdownGrace
                + ", token=" + (token == null ? "none" : "***") + ", tokenFile=" + tokenFile + ", readToken="
                + (readToken == null ? "none" : "***") + ", readTokenFile=" + readTokenFile + ", insecureBind="
                + insecureBind + ", ops=" + ops + ", maxConnections=" + maxConnections + ", tlsCertFile=" + tlsCertFile
                + ", tlsKeyFile=" + tlsKeyFile + "]";
    }

    public static HttpOptions defaults() {
        return builder().build();
    }

    public static int defaultEventLoops() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    /** Every setting at its default: loopback, port {@value #DEFAULT_PORT}, no token, no ops port. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options, to change some of them. */
    public Builder toBuilder() {
        return new Builder()
                .host(host)
                .port(port)
                .maxBatch(maxBatch)
                .maxBody(maxBody)
                .idleTimeout(idleTimeout)
                .eventLoops(eventLoops)
                .shutdownGrace(shutdownGrace)
                .token(token)
                .tokenFile(tokenFile)
                .readToken(readToken)
                .readTokenFile(readTokenFile)
                .insecureBind(insecureBind)
                .ops(ops)
                .maxConnections(maxConnections)
                .tls(tlsCertFile, tlsKeyFile);
    }

    /** Options being built; {@link #build} checks them as the record does. */
    public static final class Builder {
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private int maxBatch = DEFAULT_MAX_BATCH;
        private long maxBody = DEFAULT_MAX_BODY;
        private Duration idleTimeout = DEFAULT_IDLE_TIMEOUT;
        private int eventLoops = defaultEventLoops();
        private Duration shutdownGrace = DEFAULT_SHUTDOWN_GRACE;
        private String token;
        private Path tokenFile;
        private String readToken;
        private Path readTokenFile;
        private boolean insecureBind;
        private OpsOptions ops;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private Path tlsCertFile;
        private Path tlsKeyFile;

        private Builder() {}

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder maxBatch(int items) {
            this.maxBatch = items;
            return this;
        }

        public Builder maxBody(long bytes) {
            this.maxBody = bytes;
            return this;
        }

        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = timeout;
            return this;
        }

        public Builder eventLoops(int loops) {
            this.eventLoops = loops;
            return this;
        }

        public Builder shutdownGrace(Duration grace) {
            this.shutdownGrace = grace;
            return this;
        }

        /** The bearer token; null for none. */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** A file of one or two bearer tokens, re-read when it changes; null for none. */
        public Builder tokenFile(Path file) {
            this.tokenFile = file;
            return this;
        }

        /** A token that reads {@code /metrics} and {@code /v1/stats} alone; null for none. */
        public Builder readToken(String token) {
            this.readToken = token;
            return this;
        }

        /** A file of one or two read tokens, re-read when it changes; null for none. */
        public Builder readTokenFile(Path file) {
            this.readTokenFile = file;
            return this;
        }

        public Builder insecureBind(boolean insecure) {
            this.insecureBind = insecure;
            return this;
        }

        /** A port of its own for the operations endpoints; null to serve them on this port alone. */
        public Builder ops(OpsOptions ops) {
            this.ops = ops;
            return this;
        }

        public Builder maxConnections(int connections) {
            this.maxConnections = connections;
            return this;
        }

        /** A PEM certificate chain and its private key, for TLS on both ports; nulls for plain HTTP. */
        public Builder tls(Path certFile, Path keyFile) {
            this.tlsCertFile = certFile;
            this.tlsKeyFile = keyFile;
            return this;
        }

        /** A PEM certificate chain for TLS on both ports, with {@link #tlsKeyFile}; null for plain HTTP. */
        public Builder tlsCertFile(Path file) {
            this.tlsCertFile = file;
            return this;
        }

        /** The PEM private key of {@link #tlsCertFile}. */
        public Builder tlsKeyFile(Path file) {
            this.tlsKeyFile = file;
            return this;
        }

        public HttpOptions build() {
            return new HttpOptions(
                    host,
                    port,
                    maxBatch,
                    maxBody,
                    idleTimeout,
                    eventLoops,
                    shutdownGrace,
                    token,
                    tokenFile,
                    readToken,
                    readTokenFile,
                    insecureBind,
                    ops,
                    maxConnections,
                    tlsCertFile,
                    tlsKeyFile);
        }
    }
}
