package dev.dedup.agent.store;

/** A store shared by several agents that tells each of them about releases made by any (the Redis tier). */
public interface ReleaseFeed {

    /**
     * Starts telling {@code listener} about every release. Fails with a message when the feed cannot be
     * subscribed at all; a feed lost later is reported through {@link ReleaseListener#missedReleases()}.
     */
    Subscription subscribe(ReleaseListener listener);

    /** A subscription to the feed. */
    interface Subscription extends AutoCloseable {

        /** True while every part of the feed is subscribed, so that no release can go unseen. */
        boolean listening();

        @Override
        void close();
    }
}
