package dev.dedup.agent.store.redis.access.connections;

import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Lettuce's connections on the HTTP server's event loops rather than on threads of their own. A claim then runs
 * on one thread from its request to its reply: the script call is written to Redis's socket by the thread that
 * read the request, and the reply completes on that thread, which writes the HTTP answer at once. No hand-off
 * between threads, no wake-ups, half the threads. The HTTP server owns the loops: Lettuce neither shuts them down
 * nor releases them, and its connections must be closed before they stop.
 *
 * <p>Nothing that runs on these loops may wait for Redis: the reply it would wait for is read by the same thread.
 * Every call on the claim path is asynchronous; what waits (the start, the topology watch, the sweep) runs on
 * other threads.
 */
final class SharedEventLoops implements EventLoopGroupProvider {

    private final EventLoopGroup loops;
    private final int threads;

    SharedEventLoops(EventLoopGroup loops) {
        this.loops = loops;
        int n = 0;
        for (var ignored : loops) {
            n++;
        }
        this.threads = Math.max(1, n);
    }

    @Override
    public <T extends EventLoopGroup> T allocate(Class<T> type) {
        if (!type.isInstance(loops)) {
            throw new IllegalStateException("the HTTP server's event loops are a "
                    + loops.getClass().getName() + ", and the Redis client's transport wants a " + type.getName());
        }
        return type.cast(loops);
    }

    @Override
    public int threadPoolSize() {
        return threads;
    }

    @Override
    public Future<Boolean> release(
            EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout, TimeUnit timeUnit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
    }

    @Override
    public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit timeUnit) {
        return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
    }
}
