/**
 * The claim path between HTTP and the store: window per namespace, verdict counting. Knows batches of
 * fingerprints, not HTTP or wire formats; the store behind it is the {@code store} package's port.
 */
package dev.dedup.agent.claims;
