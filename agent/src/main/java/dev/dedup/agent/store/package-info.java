/**
 * The store port ({@link dev.dedup.agent.store.ClaimStore}) and its failure type. Implementations live in
 * sub-packages: {@code embedded} (a memory-mapped set-associative table on one node) and {@code redis}
 * (sharded hash buckets written by Lua). Nothing here knows about HTTP or the near-cache.
 */
package dev.dedup.agent.store;
