package dev.dedup.agent.store;

/** A store shared by several agents that tells each of them about releases made by any (the Redis tier). */
public interface ReleaseFeed {

    /**
     * Starts telling {@code listener} about every release, and whether the feed is whole ({@link
     * ReleaseListener#listening}). Fails with a message when the feed cannot be subscribed at all.
     */
    Subscription subscribe(ReleaseListener listener);

    /** A subscription to the feed; closing it ends the calls to its listener. */
    interface Subscription extends AutoCloseable {

        @Override
        void close();
    }
}
