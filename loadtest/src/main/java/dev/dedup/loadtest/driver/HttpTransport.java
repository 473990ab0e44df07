package dev.dedup.loadtest.driver;

import dev.dedup.loadtest.workload.Format;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * {@code POST /v1/claims} over HTTP/1.1: keep-alive, no pipelining, a pool of one connection per worker for
 * each target, so every worker has its own connection and one request in flight. Worker {@code w} sends its
 * {@code k}-th batch to target {@code (w + k) mod targets}.
 */
public final class HttpTransport implements Transport<Buffer> {

    /** The path claims are posted to. */
    public static final String CLAIMS_PATH = "/v1/claims";

    private final HttpClientAgent client;
    private final List<Target> targets;
    private final Format format;
    private final long timeoutMillis;
    private final long[] sentByWorker;

    public HttpTransport(Vertx vertx, List<Target> targets, int workers, Format format, Duration timeout) {
        this.targets = List.copyOf(targets);
        this.format = format;
        this.timeoutMillis = timeout.toMillis();
        this.sentByWorker = new long[workers];
        // A pooled connection is let go after 30 s unused, before the agent's idle timeout (60 s by default)
        // closes it: else a call can go out on a connection the agent is closing at that moment, and fail.
        HttpClientOptions options = new HttpClientOptions()
                .setKeepAlive(true)
                .setPipelining(false)
                .setTcpNoDelay(true)
                .setKeepAliveTimeout(30);
        this.client = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(workers));
    }

    @Override
    public Buffer prepare(byte[] body) {
        return Buffer.buffer(body);
    }

    @Override
    public Future<byte[]> send(int worker, Buffer body, int items) {
        // Only worker's own context touches sentByWorker[worker].
        Target target = targets.get((int) ((worker + sentByWorker[worker]++) % targets.size()));
        RequestOptions request = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setHost(target.host())
                .setPort(target.port())
                .setURI(CLAIMS_PATH)
                .setTimeout(timeoutMillis)
                .putHeader(HttpHeaders.CONTENT_TYPE, format.requestType());
        return client.request(request)
                .compose(req -> req.send(body))
                .compose(response -> response.body().map(answer -> verdicts(response, answer, items)))
                .recover(cause ->
                        Future.failedFuture(cause instanceof RequestFailure ? cause : RequestFailure.io(cause)));
    }

    private byte[] verdicts(HttpClientResponse response, Buffer answer, int items) {
        if (response.statusCode() != 200) {
            throw RequestFailure.status(response.statusCode(), answer.toString());
        }
        String type = response.getHeader(HttpHeaders.CONTENT_TYPE);
        if (type == null || !type.startsWith(format.responseType())) {
            throw RequestFailure.badResponse("Content-Type " + type + ", expected " + format.responseType());
        }
        return format == Format.BINARY ? VerdictDecoder.binary(answer, items) : VerdictDecoder.json(answer, items);
    }

    @Override
    public String describe() {
        return targets.stream().map(Target::toString).collect(Collectors.joining(","));
    }

    @Override
    public void close() {
        client.close();
    }
}
