/**
 * {@code self-test}: an agent of the given settings started on a free loopback port and asked, through its own
 * HTTP API, what a worker would ask; also the workload the image's ahead-of-time cache is trained on.
 */
package dev.dedup.agent.selftest;
