package dev.dedup.agent.store;

/**
 * What a shared store tells about releases made by any agent, so that a near-cache never answers for a
 * claim that was given back elsewhere. Called from the store's I/O threads: implementations must be
 * thread-safe and quick.
 */
public interface ReleaseListener {

    /** An id was released: the top 56 bits of its key, the part every store layout keeps. */
    void released(long field);

    /**
     * The feed changed: {@code listening} says whether every part of it is subscribed now, so that no release
     * can go unseen. Either way everything cached must be forgotten: releases went unseen while a part was lost,
     * and a claim in flight may have cached an entry after the loss was told. Calls come one at a time, in the
     * order of the changes, so the last one says how the feed stands.
     */
    void listening(boolean listening);
}
