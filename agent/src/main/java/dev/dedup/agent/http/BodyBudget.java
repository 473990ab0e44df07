package dev.dedup.agent.http;

import dev.dedup.agent.metrics.AgentMetrics;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many bytes of request bodies the agent holds at once, over every request and connection: a body is read
 * whole before it is decoded (and copied once more then), so without a bound a burst of large bodies exhausts a
 * small heap. A request reserves what its {@code Content-Length} declares (up to {@code max-body}; a body without
 * one, {@code max-body}) before its body is read, and gives it back when its answer is sent. Past the budget it is
 * answered 503 with {@code Retry-After} at once, its body unread, and its connection closed: the worker sends it
 * again a second later, as after any 503.
 *
 * <p>The budget is a quarter of the JVM's largest heap, and at least one body of {@code max-body}: a body is held
 * twice while it is decoded, and the rest of the heap is the near-cache's and the agent's own.
 */
public final class BodyBudget {

    private final long limit;
    private final long maxBody;
    private final AtomicLong held = new AtomicLong();

    BodyBudget(long limit, long maxBody) {
        this.limit = Math.max(limit, maxBody);
        this.maxBody = maxBody;
    }

    /** A quarter of this JVM's largest heap ({@link Runtime#maxMemory}), at least {@code maxBody}. */
    public static BodyBudget ofHeap(long maxBody) {
        return new BodyBudget(Runtime.getRuntime().maxMemory() / 4, maxBody);
    }

    long limit() {
        return limit;
    }

    /** Bytes reserved by the requests being read or answered now. */
    long held() {
        return held.get();
    }

    /** Reserves {@code bytes}, unless that would pass the budget while other bodies are held. */
    boolean reserve(long bytes) {
        while (true) {
            long now = held.get();
            if (now > 0 && now + bytes > limit) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        held.addAndGet(-bytes);
    }

    /**
     * The route before a body is read: reserves the request's body, to be given back when its answer ends, or
     * answers 503 when the budget is spent.
     */
    void handle(RoutingContext ctx, AgentMetrics metrics) {
        long need = declared(ctx.request().getHeader("Content-Length"));
        if (!reserve(need)) {
            ctx.response().putHeader("Connection", "close");
            ctx.response().endHandler(done -> ctx.request().connection().close());
            ErrorReplies.reject(
                    metrics,
                    ctx.response(),
                    ErrorReplies.Code.UNAVAILABLE,
                    "the agent holds " + held() + " bytes of request bodies, its budget of " + limit
                            + " (a quarter of its heap): send again after Retry-After");
            return;
        }
        ctx.addEndHandler(done -> release(need));
        ctx.next();
    }

    /** What a request's body may take: its declared length up to {@code max-body} (413 past it), else max-body. */
    private long declared(String contentLength) {
        if (contentLength != null) {
            try {
                long n = Long.parseLong(contentLength.trim());
                if (n >= 0) {
                    return Math.min(n, maxBody);
                }
            } catch (NumberFormatException e) {
                // not a length: Vert.x refuses the request; reserve as for a body without one
            }
        }
        return maxBody;
    }
}
