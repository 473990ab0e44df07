/**
 * Metric names and the agent's Micrometer meters, published in Prometheus text format at {@code /metrics}.
 * Stores register their own gauges against the registry; no id ever becomes a tag.
 */
package dev.dedup.agent.metrics;
