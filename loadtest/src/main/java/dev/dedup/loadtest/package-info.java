/**
 * The load generator: {@code java -jar loadtest/target/dedup-loadtest.jar --help}. {@link
 * dev.dedup.loadtest.Main} parses the command line into {@link dev.dedup.loadtest.LoadOptions} and hands
 * them to {@link dev.dedup.loadtest.LoadRun}, which prepares each scenario, drives it and reports it.
 * It talks to agents over HTTP (or to Redis directly) and does not depend on the agent's classes; the
 * benchmarks that do (JMH, the embedded store's retention) live in the {@code loadtest/jmh} module.
 *
 * <p>Subpackages: {@code workload} (what is sent and what should come back), {@code driver} (sending and
 * measuring), {@code direct} (Tapjoy's design straight to Redis), {@code report} (table, JSON lines, HTML).
 */
package dev.dedup.loadtest;
