/**
 * The v1 wire contract as a worker sees it, on the JDK alone: {@link dev.dedup.wire.Item} and
 * {@link dev.dedup.wire.Verdict}, the fixed {@link dev.dedup.wire.Limits}, the encoders of request bodies, the {@link dev.dedup.wire.MediaTypes} and the two {@link dev.dedup.wire.WireFormat}s (defined
 * here once for the client, the agent and the load generator), and the {@link
 * dev.dedup.wire.BatchRejectedException} that names what and where a body is wrong. The agent's side (decoding
 * requests, encoding answers), fingerprints and routing live in {@code dev.dedup.codec}, {@code dev.dedup.fingerprint} and {@code dev.dedup.routing}
 * (artifact {@code dedup-codec}); no HTTP and no store here.
 */
package dev.dedup.wire;
