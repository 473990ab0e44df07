/**
 * The store port: {@link dev.dedup.agent.store.ClaimStore}, the {@link dev.dedup.agent.store.ClaimPolicy}
 * a namespace's claims are kept by (window, event time; the one place a claim's end is computed), the
 * {@link dev.dedup.agent.store.ReleaseFeed} a shared store offers the near-cache, and the failure type;
 * besides, {@link dev.dedup.agent.store.LongIntTable}, the index of a batch's keys that both the near-cache and
 * the Redis tier build per call.
 * Implementations live in sub-packages: {@code embedded} (a memory-mapped set-associative table on one
 * node) and {@code redis} (shards written by Lua). Nothing here knows about HTTP or the near-cache.
 */
package dev.dedup.agent.store;
