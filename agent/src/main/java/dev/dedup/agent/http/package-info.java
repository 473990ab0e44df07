/**
 * The HTTP surface of the contract (docs/api.md): routes, content types, limits, error bodies and status codes,
 * health, metrics and stats. Decodes and validates every request before the claim service sees it, so a
 * 4xx changes nothing. Runs on Vert.x event loops and never blocks them.
 */
package dev.dedup.agent.http;
