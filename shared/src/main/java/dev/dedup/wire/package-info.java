/**
 * The v1 wire contract with workers: items, verdicts, the JSON and binary request codecs, the verdict
 * encoders, and the fixed limits. Decoders are total (every input is a {@link dev.dedup.wire.Batch} or a
 * {@link dev.dedup.wire.BatchRejectedException} that names its place) and turn ids into fingerprints as
 * they read them. No HTTP and no store here.
 */
package dev.dedup.wire;
