/**
 * Ordered streams (the KCL + S3 design of "Avoiding duplicate records with AWS KCL and S3", with the agent's
 * store in place of S3) between HTTP and the store: resolves a namespace's window for its committed ranges,
 * asks the {@link dev.dedup.agent.store.RangeStore}, and counts what was checked and committed. Not behind the
 * near-cache (see the port).
 */
package dev.dedup.agent.ranges;
