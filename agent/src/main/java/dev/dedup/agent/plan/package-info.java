/**
 * {@code plan}: the Redis a rate and a window need (shards, memory, disk, CPU), from the costs measured on
 * shards that hold a full window.
 */
package dev.dedup.agent.plan;
