package dev.dedup.agent.config;

import java.time.Duration;

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
 * @param token        bearer token every request but {@code /health/live} must carry; null for none
 * @param insecureBind allow a non-loopback {@code host} without a token
 * @param ops          a port of its own for the operations endpoints, besides this one; null for none
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
        boolean insecureBind,
        OpsOptions ops) {

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 7070;
    public static final int DEFAULT_MAX_BATCH = 10_000;
    public static final long DEFAULT_MAX_BODY = 8L << 20;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(10);
    /** 1 GiB: bodies are held in memory whole. */
    public static final long MAX_MAX_BODY = 1L << 30;

    public HttpOptions {
        ConfigException.require(host != null && !host.isBlank(), "host", host, "give an address to bind");
        ConfigException.require(port >= 0 && port <= 65535, "port", port, "use 1 to 65535");
        ConfigException.require(maxBatch >= 1 && maxBatch <= 1_000_000, "max-batch", maxBatch, "use 1 to 1000000");
        ConfigException.require(maxBody >= 64 && maxBody <= MAX_MAX_BODY, "max-body", maxBody, "use 64 bytes to 1GiB");
        ConfigException.require(
                idleTimeout.toMillis() >= 1000, "idle-timeout", Durations.format(idleTimeout), "use 1s or more");
        ConfigException.require(eventLoops >= 1 && eventLoops <= 256, "event-loops", eventLoops, "use 1 to 256");
        ConfigException.require(
                !shutdownGrace.isNegative(), "shutdown-grace", Durations.format(shutdownGrace), "use 0s or more");
        if (token != null) {
            // The value is a secret: the message names the setting, never the value.
            ConfigException.require(
                    token.length() >= MIN_TOKEN_LENGTH && token.chars().allMatch(c -> c > 0x20 && c < 0x7f),
                    "token",
                    "(" + token.length() + " characters)",
                    "use at least " + MIN_TOKEN_LENGTH + " printable ASCII characters without spaces");
        }
        if (token == null && !insecureBind && !isLoopback(host)) {
            throw new ConfigException("host: " + host + " is not a loopback address; set --token (workers then send "
                    + "Authorization: Bearer <token>) or --insecure-bind to accept requests from anyone who can reach it"
                    + " (for probes and scrapers alone, keep host on loopback and set --ops-port)");
        }
        if (ops != null && ops.port() != 0 && ops.port() == port) {
            throw new ConfigException("ops-port: " + port + " is also the claim port (port); give the operations"
                    + " endpoints another port, or no ops-port to serve them on the claim port alone");
        }
    }

    /** Without a port of its own for the operations endpoints. */
    public HttpOptions(
            String host,
            int port,
            int maxBatch,
            long maxBody,
            Duration idleTimeout,
            int eventLoops,
            Duration shutdownGrace,
            String token,
            boolean insecureBind) {
        this(host, port, maxBatch, maxBody, idleTimeout, eventLoops, shutdownGrace, token, insecureBind, null);
    }

    /** The v1 constructor: no token, loopback only. */
    public HttpOptions(
            String host,
            int port,
            int maxBatch,
            long maxBody,
            Duration idleTimeout,
            int eventLoops,
            Duration shutdownGrace) {
        this(host, port, maxBatch, maxBody, idleTimeout, eventLoops, shutdownGrace, null, false, null);
    }

    public static final int MIN_TOKEN_LENGTH = 16;

    private static boolean isLoopback(String host) {
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
                + ", token=" + (token == null ? "none" : "***") + ", insecureBind=" + insecureBind + ", ops=" + ops
                + "]";
    }

    public static HttpOptions defaults() {
        return new HttpOptions(
                DEFAULT_HOST,
                DEFAULT_PORT,
                DEFAULT_MAX_BATCH,
                DEFAULT_MAX_BODY,
                DEFAULT_IDLE_TIMEOUT,
                defaultEventLoops(),
                DEFAULT_SHUTDOWN_GRACE);
    }

    public static int defaultEventLoops() {
        return Math.max(1, Runtime.getRuntime().availableProcessors());
    }

    public HttpOptions withPort(int newPort) {
        return new HttpOptions(
                host, newPort, maxBatch, maxBody, idleTimeout, eventLoops, shutdownGrace, token, insecureBind, ops);
    }

    public HttpOptions withToken(String newToken, boolean newInsecureBind) {
        return new HttpOptions(
                host, port, maxBatch, maxBody, idleTimeout, eventLoops, shutdownGrace, newToken, newInsecureBind, ops);
    }

    /** With the operations endpoints also on {@code newOps} (null: on this port alone). */
    public HttpOptions withOps(OpsOptions newOps) {
        return new HttpOptions(
                host, port, maxBatch, maxBody, idleTimeout, eventLoops, shutdownGrace, token, insecureBind, newOps);
    }
}
