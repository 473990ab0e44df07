/**
 * The claim path between HTTP and the store: resolves a namespace's
 * {@link dev.dedup.agent.store.ClaimPolicy} once per request, checks the items against it (event times
 * where the namespace files claims by them), and counts verdicts. Knows batches of fingerprints, not HTTP
 * or wire formats; the store behind it is the {@code store} package's port.
 */
package dev.dedup.agent.claims;
