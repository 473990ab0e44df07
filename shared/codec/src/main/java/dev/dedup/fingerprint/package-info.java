/**
 * Fingerprints of ids, owners and namespaces (XXH3 from hash4j). The widths chosen here bound the
 * false-drop probability documented in docs/guarantees.md; stores keep fingerprints, never raw ids. The decoders
 * in {@code dev.dedup.codec} apply them as they read; a worker's client sends raw ids and needs none of
 * this (artifact {@code dedup-codec}, not {@code dedup-client}).
 */
package dev.dedup.fingerprint;
