/**
 * The agent's entry point ({@link dev.dedup.agent.Main}) and wiring ({@link dev.dedup.agent.Agent}). The
 * claim path reads by package: {@code http → claims → nearcache → store (embedded | redis)}; {@code config}
 * and {@code metrics} serve them all.
 */
package dev.dedup.agent;
