/**
 * {@code plan}: the Redis a rate and a window need (shards, memory, disk, CPU), from the costs measured on
 * shards that hold a full window; as text, or as the kustomize overlay that runs it on Kubernetes.
 */
package dev.dedup.agent.plan;
