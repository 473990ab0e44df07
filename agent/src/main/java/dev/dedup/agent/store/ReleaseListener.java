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
     * Releases may have gone unseen: a channel was lost, or has just been subscribed again (a claim in
     * flight may have cached an entry after the loss was reported). Everything cached must be forgotten.
     */
    void missedReleases();
}
