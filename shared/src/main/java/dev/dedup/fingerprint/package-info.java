/**
 * Fingerprints of ids, owners and namespaces (XXH3 from hash4j). The widths chosen here bound the
 * false-drop probability documented in the README; stores keep fingerprints, never raw ids.
 */
package dev.dedup.fingerprint;
