/**
 * The near-cache: ids this agent claimed recently, kept on the heap so that retries and repeated copies
 * cost no Redis round trip ({@code NearCache}: a Caffeine cache of pages, each a primitive array of 8-way
 * sets of claims, {@code Page}), and the store decorator that consults it ({@code NearCachedStore}). It
 * hears about releases made by any agent through the store's {@link dev.dedup.agent.store.ReleaseFeed},
 * and is bypassed while that feed is not listening. It never answers differently from the store it
 * fronts, except where it knows more (whole owner fingerprints). It knows the store port only, never a
 * Redis client.
 */
package dev.dedup.agent.nearcache;
