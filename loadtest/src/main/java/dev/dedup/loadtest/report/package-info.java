/**
 * The outcome of a scenario ({@link dev.dedup.loadtest.report.ScenarioResult}) and its two renderings: a
 * table for people and one JSON line per scenario for scripts. Formatting only; no measuring here.
 */
package dev.dedup.loadtest.report;
