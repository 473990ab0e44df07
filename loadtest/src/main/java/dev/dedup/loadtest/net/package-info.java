/**
 * A network between the agent and its shards that is slower than loopback: {@link
 * dev.dedup.loadtest.net.DelayProxy} holds every chunk of a TCP connection back for a set time each way, in order,
 * as a link of that latency would; {@code bench-redis.sh} runs it in front of shards on hosts of their own, and the
 * network-fault tests put it in the path of one agent. What the proxy itself costs in CPU is measured beside what
 * it delays.
 */
package dev.dedup.loadtest.net;
