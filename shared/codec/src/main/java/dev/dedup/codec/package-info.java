/**
 * The agent's side of the wire. Reading request bodies: {@link dev.dedup.codec.BinaryBatchDecoder} and {@link
 * dev.dedup.codec.JsonBatchDecoder} turn a body into a {@link dev.dedup.codec.Batch} of fingerprints, or
 * into a {@link dev.dedup.wire.BatchRejectedException} that names its place. Decoders are total (every
 * input is one or the other) and fingerprint ids as they read them, so raw ids never travel further.
 * Writing answers: {@link dev.dedup.codec.VerdictEncoder}. Writing requests, the media types and the limits
 * are the contract's, shared with the workers, in {@code dev.dedup.wire}; no HTTP and no store here.
 */
package dev.dedup.codec;
