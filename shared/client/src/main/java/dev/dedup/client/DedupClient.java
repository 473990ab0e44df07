package dev.dedup.client;

import dev.dedup.wire.BatchEncoder;
import dev.dedup.wire.BatchRejectedException;
import dev.dedup.wire.Item;
import dev.dedup.wire.Limits;
import dev.dedup.wire.MediaTypes;
import dev.dedup.wire.RangeEncoder;
import dev.dedup.wire.SequenceRange;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Claims and releases batches of messages at a dedup agent, over the contract's binary format.
 *
 * <pre>{@code
 * DedupClient dedup = DedupClient.fromEnvironment(); // DEDUP_URL (default http://127.0.0.1:7070), DEDUP_TOKEN
 *
 * List<Item> items = new ArrayList<>();
 * for (ConsumerRecord<String, byte[]> r : records) {
 *     String id = new String(r.headers().lastHeader("message-id").value(), UTF_8); // the producer's id, not the key
 *     items.add(new Item(id, Owners.kafka(r.topic(), r.partition(), r.offset())));
 * }
 * List<Verdict> verdicts = dedup.claim("clicks", items); // throws IOException: then process nothing, retry
 * for (int i = 0; i < items.size(); i++) {
 *     if (verdicts.get(i) != Verdict.DUPLICATE) {
 *         process(records.get(i));            // NEW, or RETRY: this copy was claimed by us before
 *     }
 * }
 * }</pre>
 *
 * <p>Answers come in item order, one per item; the same id twice in a batch is {@code NEW} then
 * {@code RETRY} or {@code DUPLICATE}. A call that fails (connection refused, timeout, {@link DedupException})
 * decided nothing the worker may rely on: a message without a verdict must not be skipped. A 503 may leave part
 * of the batch claimed; sending the same batch with the same owners again answers {@code RETRY} for those.
 *
 * <p>Instances are immutable and thread-safe; share one per agent.
 */
public final class DedupClient {

    /** How long a call may take, from sending to the last byte of the answer, unless configured. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(5);
    /** How long connecting may take, unless configured. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    /** The agent's address when {@link #URL_VARIABLE} is not set: the sidecar on the pod's loopback. */
    public static final URI DEFAULT_URL = URI.create("http://127.0.0.1:7070");
    /** The environment variable that names the agent's address, read by {@link #fromEnvironment()}. */
    public static final String URL_VARIABLE = "DEDUP_URL";
    /** The environment variable that holds the agent's {@code --token}, read by {@link #fromEnvironment()}. */
    public static final String TOKEN_VARIABLE = "DEDUP_TOKEN";
    /**
     * The environment variable that names a PEM file of the certificates to trust for an {@code https} agent (its
     * {@code --tls-cert-file}'s issuer), read by {@link #fromEnvironment()}.
     */
    public static final String CA_FILE_VARIABLE = "DEDUP_CA_FILE";

    private final HttpClient http;
    private final URI base;
    private final URI claims;
    private final URI releases;
    private final URI rangesCheck;
    private final URI rangesCommit;
    private final Duration timeout;
    private final String authorization;

    private DedupClient(Builder b) {
        this.http = b.httpClient != null ? b.httpClient : newHttpClient(b);
        this.base = b.base;
        String prefix = b.base.toString();
        while (prefix.endsWith("/")) {
            prefix = prefix.substring(0, prefix.length() - 1);
        }
        this.claims = URI.create(prefix + "/v1/claims");
        this.releases = URI.create(prefix + "/v1/releases");
        this.rangesCheck = URI.create(prefix + "/v1/ranges/check");
        this.rangesCommit = URI.create(prefix + "/v1/ranges/commit");
        this.timeout = b.timeout;
        this.authorization = b.token == null ? null : "Bearer " + b.token;
    }

    private static HttpClient newHttpClient(Builder b) {
        HttpClient.Builder http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1) // the agent speaks HTTP/1.1; skip the h2c upgrade attempt
                .connectTimeout(b.connectTimeout);
        if (b.trusted != null) {
            http.sslContext(b.trusted);
        }
        return http.build();
    }

    /** A client of the agent at {@code base} (e.g. {@code http://127.0.0.1:7070}) with default settings. */
    public static DedupClient create(URI base) {
        return builder(base).build();
    }

    public static Builder builder(URI base) {
        return new Builder(base, "base");
    }

    /**
     * A client of the agent this process is told about: {@code DEDUP_URL} (default {@link #DEFAULT_URL}),
     * {@code DEDUP_TOKEN}, when set and not empty, sent as {@code Authorization: Bearer <token>}, and {@code
     * DEDUP_CA_FILE}, when set, the certificates an {@code https} agent is trusted by. What a pod
     * template or a unit gives the worker, e.g. {@code DEDUP_URL=http://127.0.0.1:7070}.
     *
     * @throws IllegalArgumentException when {@code DEDUP_URL} or {@code DEDUP_TOKEN} is not valid, naming it
     */
    public static DedupClient fromEnvironment() {
        return builderFromEnvironment(System.getenv()).build();
    }

    /**
     * The settings {@link #fromEnvironment()} reads from {@code environment}, to change others (a setting
     * given to the builder, such as {@link Builder#token}, wins over the environment's). Surrounding
     * whitespace is ignored (a Secret's trailing newline), as the agent ignores it in its own {@code --token}.
     *
     * @throws IllegalArgumentException when {@code DEDUP_URL} or {@code DEDUP_TOKEN} is not valid, naming it
     */
    public static Builder builderFromEnvironment(Map<String, String> environment) {
        String url = variable(environment, URL_VARIABLE);
        URI base;
        try {
            base = url == null ? DEFAULT_URL : new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(URL_VARIABLE + ": '" + url + "' is not a URI: " + e.getReason(), e);
        }
        Builder b = new Builder(base, URL_VARIABLE);
        String token = variable(environment, TOKEN_VARIABLE);
        if (token != null) {
            b.token(token, TOKEN_VARIABLE);
        }
        String caFile = variable(environment, CA_FILE_VARIABLE);
        if (caFile != null) {
            b.caFile(java.nio.file.Paths.get(caFile), CA_FILE_VARIABLE);
        }
        return b;
    }

    /** A variable's value without surrounding whitespace, or null when it is unset or empty. */
    private static String variable(Map<String, String> environment, String name) {
        String value = environment.get(name);
        return value == null || value.strip().isEmpty() ? null : value.strip();
    }

    /** The agent's base URI, as given (or as {@code DEDUP_URL} gave it). */
    public URI base() {
        return base;
    }

    /**
     * Claims {@code items} in namespace {@code ns} ({@code null} or empty: the default namespace).
     *
     * @return one verdict per item, in order
     * @throws DedupException when the agent answers an error (4xx: the request is wrong; 503: it cannot decide)
     * @throws IOException    when the agent cannot be reached or does not answer in time
     * @throws IllegalArgumentException when {@code ns} is not a namespace the agent takes (1 to 64 of {@code A-Z a-z
     *     0-9 . _ -}) or a field is over 65,535 bytes
     */
    public List<Verdict> claim(String ns, List<Item> items) throws IOException {
        return Responses.verdicts(send(request(claims, ns, items)), items.size());
    }

    /** {@link #claim} without blocking; the future fails with the exceptions {@code claim} throws. */
    public CompletableFuture<List<Verdict>> claimAsync(String ns, List<Item> items) {
        int n = items.size();
        return sendAsync(request(claims, ns, items), response -> Responses.verdicts(response, n));
    }

    /**
     * Gives back the claims of {@code items} (e.g. processing failed and the messages will be redelivered).
     * A claim is released only where the item's owner holds it.
     *
     * @return per item, in order: {@code true} if released, {@code false} if that owner did not hold the claim
     * @throws DedupException when the agent answers an error
     * @throws IOException    when the agent cannot be reached or does not answer in time
     * @throws IllegalArgumentException as {@link #claim} does
     */
    public boolean[] release(String ns, List<Item> items) throws IOException {
        return Responses.released(send(request(releases, ns, items)), items.size());
    }

    /** {@link #release} without blocking; the future fails with the exceptions {@code release} throws. */
    public CompletableFuture<boolean[]> releaseAsync(String ns, List<Item> items) {
        int n = items.size();
        return sendAsync(request(releases, ns, items), response -> Responses.released(response, n));
    }

    /**
     * Which parts of {@code ranges} of an ordered stream (a Kinesis shard, a Kafka partition) were
     * committed already, for the namespace's window: before processing a batch after a restart or a
     * rebalance, drop the records inside them.
     *
     * @return per range, in order, its maximal committed sub-ranges (an empty list when none is)
     * @throws DedupException when the agent answers an error (4xx: the request is wrong; 503: it cannot decide,
     *     and nothing may be taken as done)
     * @throws IOException    when the agent cannot be reached or does not answer in time
     * @throws IllegalArgumentException when the namespace is not valid (1 to 64 of {@code A-Z a-z 0-9 . _ -}) or
     *     the stream is not 1 to 256 UTF-8 bytes
     */
    public List<List<SequenceRange>> checkRanges(String ns, String stream, List<SequenceRange> ranges)
            throws IOException {
        HttpResponse<byte[]> response = send(rangeRequest(rangesCheck, ns, stream, ranges));
        return Responses.done(response, ranges.size());
    }

    /**
     * Records that {@code ranges} of a stream are done, after their output is durably written. Commits are
     * idempotent, and overlapping or adjacent ranges merge: commit each batch from one past the previous
     * batch's last sequence number ({@link SequenceRange#after}) so that a stream read in order is one stored
     * range. A crash between writing the output and this commit makes the batch be processed again.
     *
     * @throws DedupException when the agent answers an error (503: the commit may or may not have been made;
     *     commit again)
     * @throws IOException    when the agent cannot be reached or does not answer in time
     */
    public void commitRanges(String ns, String stream, List<SequenceRange> ranges) throws IOException {
        Responses.committed(send(rangeRequest(rangesCommit, ns, stream, ranges)), ranges.size());
    }

    private HttpRequest rangeRequest(URI uri, String ns, String stream, List<SequenceRange> ranges) {
        Objects.requireNonNull(ranges, "ranges");
        byte[] body;
        try {
            body = RangeEncoder.request(ns == null || ns.isEmpty() ? Limits.DEFAULT_NAMESPACE : ns, stream, ranges);
        } catch (BatchRejectedException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return post(uri, MediaTypes.JSON, MediaTypes.JSON, body);
    }

    private HttpRequest request(URI uri, String ns, List<Item> items) {
        Objects.requireNonNull(items, "items");
        if (ns != null && !ns.isEmpty()) {
            try {
                Limits.requireNamespace(ns); // the agent's rule, so that a bad namespace fails here, not as a 400
            } catch (BatchRejectedException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
        }
        byte[] body = BatchEncoder.binary(ns == null ? "" : ns, items);
        return post(uri, MediaTypes.BATCH, MediaTypes.VERDICTS, body);
    }

    /** A POST of {@code body} with its type, the answer's type it accepts, the timeout and the token if any. */
    private HttpRequest post(URI uri, String contentType, String accept, byte[] body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri)
                .timeout(timeout)
                .header("Content-Type", contentType)
                .header("Accept", accept)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return b.build();
    }

    private HttpResponse<byte[]> send(HttpRequest request) throws IOException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("interrupted waiting for " + request.uri());
            interrupted.initCause(e);
            throw interrupted;
        }
    }

    /** How an answer is read: its value, or the agent's error. */
    private interface Answer<T> {
        T read(HttpResponse<byte[]> response) throws DedupException;
    }

    /** Sends {@code request} without blocking; the future holds what {@code answer} reads, or fails with its error. */
    private <T> CompletableFuture<T> sendAsync(HttpRequest request, Answer<T> answer) {
        return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenApply(response -> {
            try {
                return answer.read(response);
            } catch (DedupException e) {
                throw new CompletionException(e);
            }
        });
    }

    /** Settings of a {@link DedupClient}; each is checked when set, naming the setting and the value. */
    public static final class Builder {
        private final URI base;
        private Duration timeout = DEFAULT_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private String token;
        private HttpClient httpClient;
        private javax.net.ssl.SSLContext trusted;

        private Builder(URI base, String setting) {
            Objects.requireNonNull(base, setting);
            String scheme = base.getScheme();
            if (!"http".equalsIgnoreCase(scheme) && !"https".equalsIgnoreCase(scheme)
                    || base.getHost() == null
                    || base.getRawQuery() != null
                    || base.getRawFragment() != null) {
                throw new IllegalArgumentException(setting + ": '" + base
                        + "' is not an http(s) URI with a host and no query, e.g. " + DEFAULT_URL);
            }
            this.base = base;
        }

        /** How long a call may take, from sending to the last byte of the answer; default 5s. */
        public Builder timeout(Duration timeout) {
            this.timeout = positive("timeout", timeout);
            return this;
        }

        /** How long connecting may take; default 2s. Ignored with {@link #httpClient}. */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = positive("connectTimeout", connectTimeout);
            return this;
        }

        /** Sends {@code Authorization: Bearer <token>} with every call: the agent's {@code --token}. */
        public Builder token(String token) {
            return token(token, "token");
        }

        private Builder token(String token, String setting) {
            if (token == null || token.isBlank() || token.chars().anyMatch(c -> c < 0x21 || c > 0x7e)) {
                throw new IllegalArgumentException(setting + ": must be non-empty printable ASCII without spaces");
            }
            this.token = token;
            return this;
        }

        /**
         * Trusts the certificates of a PEM file (the issuer of the agent's {@code --tls-cert-file}) for an {@code
         * https} agent, instead of the JVM's default ones. Ignored with {@link #httpClient}.
         */
        public Builder caFile(java.nio.file.Path file) {
            return caFile(file, "caFile");
        }

        private Builder caFile(java.nio.file.Path file, String setting) {
            this.trusted = TrustedCertificates.context(setting, Objects.requireNonNull(file, setting));
            return this;
        }

        /** Sends through {@code client} (to share its connections and executor) instead of a new one. */
        public Builder httpClient(HttpClient client) {
            this.httpClient = Objects.requireNonNull(client, "httpClient");
            return this;
        }

        public DedupClient build() {
            return new DedupClient(this);
        }

        private static Duration positive(String setting, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(setting + ": must be positive, got " + d);
            }
            return d;
        }
    }
}
