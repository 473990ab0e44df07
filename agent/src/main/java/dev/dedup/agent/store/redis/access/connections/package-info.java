/**
 * The port on Lettuce ({@link dev.dedup.agent.store.redis.access.connections.LettuceRedis}), the only package that names
 * Lettuce: where each shard's calls go ({@code LettuceRedis.Nodes}: standalone or Sentinel-managed shards in
 * {@code ShardNodes}, one connection each, a Redis Cluster in {@code ClusterNodes}), the release channel's
 * subscriptions, the event loops shared with the HTTP server, what every client and connection is built and closed
 * with ({@code Connections}), Lettuce's exceptions translated into store failures ({@code LettuceFailures}), and each
 * server's eviction policy read for the start's check ({@code EvictionReadings}). Only {@code LettuceRedis} is public; the store creates it and talks to it as a {@link
 * dev.dedup.agent.store.redis.access.RedisPort}.
 */
package dev.dedup.agent.store.redis.access.connections;
