/**
 * Checks of a setup: {@code SetupCheck} runs the {@code self-test} command, an agent of the given settings started
 * on a free loopback port and asked, through its own HTTP API, what a worker would ask; it is also the workload the
 * image's ahead-of-time cache is trained on.
 */
package dev.dedup.agent.check;
