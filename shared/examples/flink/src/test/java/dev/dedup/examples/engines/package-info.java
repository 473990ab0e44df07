/**
 * The engine benchmark ({@code loadtest/bench-engines.sh}): Flink's and Kafka Streams' own deduplication at their
 * best beside each engine with the library, at one rate from a Kafka topic, each job in a JVM of its own. Its runs
 * are not part of the build's tests; what they measure is in docs/loadtest.md.
 */
package dev.dedup.examples.engines;
