package dev.dedup.agent.config;

import dev.dedup.agent.config.value.ConfigException;

/**
 * A port of its own for the operations endpoints ({@code /health/live}, {@code /health/ready}, {@code /metrics},
 * {@code /v1/stats}), which they are served on besides the claim port, so that probes and scrapers can reach
 * them from outside the pod while the claim API stays on loopback. Nothing else is served there.
 *
 * <p>Binding it to any address needs no token: the probes need none anyway, and with a token set
 * {@code /metrics} and {@code /v1/stats} require it here as on the claim port. Without any token, on an address
 * that is not loopback, {@code /v1/stats} is refused here: it names files, Redis hosts and users.
 *
 * @param host address to bind; {@link #DEFAULT_HOST}, every address, unless configured
 * @param port port to bind; 0 picks a free one (tests)
 */
public record OpsOptions(String host, int port) {

    /** Every address of the pod: where the kubelet's probes and Prometheus come from. */
    public static final String DEFAULT_HOST = "0.0.0.0";

    public OpsOptions {
        ConfigException.require(host != null && !host.isBlank(), "ops-host", host, "give an address to bind");
        HttpOptions.PORT_BOUNDS.check("ops-port", port);
        try {
            java.net.InetAddress.getByName(host);
        } catch (java.net.UnknownHostException e) {
            throw new ConfigException("ops-host: " + host + " cannot be resolved");
        }
    }
}
