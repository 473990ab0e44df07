/**
 * Sends prepared workloads and measures them: a fixed number of workers, each with one request in flight,
 * loop "take the next batch, send it, await the answer, record its latency and check its verdicts"; the
 * {@link dev.dedup.loadtest.driver.Transport} is how a batch reaches a store — today the agent's HTTP API
 * ({@link dev.dedup.loadtest.driver.HttpTransport}).
 *
 * <p>Workers run on Vert.x event loops and never block them; only the thread that started a scenario
 * waits for it. What a run should send and expect lives in {@code dev.dedup.loadtest.workload}; how results
 * are shown, in {@code dev.dedup.loadtest.report}.
 */
package dev.dedup.loadtest.driver;
