/**
 * The load generator: {@code java -jar loadtest/target/dedup-loadtest.jar --help}. {@link
 * dev.dedup.loadtest.Main} parses the command line into {@link dev.dedup.loadtest.LoadOptions} and hands
 * them to {@link dev.dedup.loadtest.LoadRun}, which prepares each scenario, drives it and reports it.
 * The JMH micro-benchmarks of the project live in this package too.
 *
 * <p>Subpackages: {@code workload} (what is sent and what should come back), {@code driver} (sending and
 * measuring), {@code report} (table and JSON lines).
 */
package dev.dedup.loadtest;
