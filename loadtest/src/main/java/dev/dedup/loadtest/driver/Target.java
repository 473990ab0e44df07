package dev.dedup.loadtest.driver;

import java.net.URI;
import java.net.URISyntaxException;

/** An agent to send to, from {@code http://HOST:PORT}. */
public record Target(String host, int port) {

    public static Target parse(String text) {
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("--target: '" + text + "' is not a URL (" + e.getReason() + ")");
        }
        if (!"http".equalsIgnoreCase(uri.getScheme())) {
            throw new IllegalArgumentException("--target: '" + text + "' must start with http://");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            throw new IllegalArgumentException("--target: '" + text + "' has no host");
        }
        String path = uri.getRawPath();
        if ((path != null && !path.isEmpty() && !path.equals("/")) || uri.getRawQuery() != null) {
            throw new IllegalArgumentException("--target: '" + text + "' must be only http://HOST:PORT");
        }
        return new Target(uri.getHost(), uri.getPort() < 0 ? 80 : uri.getPort());
    }

    @Override
    public String toString() {
        return "http://" + host + ":" + port;
    }
}
