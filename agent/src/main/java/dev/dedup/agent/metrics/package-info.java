/**
 * Metric names and the agent's Micrometer meters, published in Prometheus text format at {@code /metrics}.
 * Stores register their own gauges against the registry; no id ever becomes a tag. {@link
 * dev.dedup.agent.metrics.BuildInfo} is which build runs, reported as {@code dedup_build_info} and, beyond the
 * meters, by {@code --version}, the start line and {@code /v1/stats}.
 */
package dev.dedup.agent.metrics;
