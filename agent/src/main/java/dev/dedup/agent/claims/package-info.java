/**
 * The claim path between HTTP and the store: finds a namespace's {@link dev.dedup.agent.store.ClaimPolicy}
 * (each resolved from the configuration once, at start), checks the items against it (event times where the
 * namespace files claims by them), and counts verdicts. Knows batches of fingerprints, not HTTP or wire formats;
 * the store behind it is the {@code store} package's port.
 */
package dev.dedup.agent.claims;
