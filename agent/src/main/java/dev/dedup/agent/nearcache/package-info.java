/**
 * The near-cache: recently claimed ids kept in this agent (a fixed set-associative table on the heap) so that retries and repeated copies
 * cost no Redis round trip, the store decorator that consults it, and the release-channel subscriber
 * that keeps it honest across agents. It never answers differently from the store it fronts, except
 * where it knows more (full owner fingerprints).
 */
package dev.dedup.agent.nearcache;
