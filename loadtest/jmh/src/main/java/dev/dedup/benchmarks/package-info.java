/**
 * Benchmarks that run the agent's own classes in process, so they live apart from the load generator
 * (which talks to an agent over HTTP and does not depend on it): {@link
 * dev.dedup.benchmarks.EmbeddedRetentionBenchmark} measures what the embedded store remembers at full
 * size and how fast it claims, and {@code dev.dedup.benchmarks.jmh} holds the JMH micro-benchmarks.
 * End-to-end figures come from the load generator and the {@code loadtest/bench-*.sh} scripts, not from
 * here.
 */
package dev.dedup.benchmarks;
