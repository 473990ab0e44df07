package dev.dedup.agent.store;

import java.util.Locale;

/**
 * Why the store could not decide: the {@code kind} of a {@link StoreUnavailableException}, the tag of
 * {@code dedup_store_errors_total}, and a row of the runbook ({@code docs/operations.md}).
 */
public enum FailureKind {
    /** A Redis shard did not answer within {@code --redis-timeout}. */
    TIMEOUT,
    /** A Redis shard refused, reset or is unreachable. */
    CONNECTION,
    /** More calls queued for a shard than {@code --redis-max-in-flight}. */
    OVERLOADED,
    /** A shard at its {@code maxmemory} refused a write. */
    OOM,
    /** The server is a replica now. */
    READONLY,
    /** The server is loading its data. */
    LOADING,
    /** Another script runs past {@code busy-reply-threshold}. */
    BUSY,
    /** The server refused the agent's credentials or a command. */
    AUTH,
    /** Cluster slots move, or a master is down. */
    CLUSTER,
    /** Fewer replicas acknowledged than {@code --redis-wait-replicas}. */
    REPLICATION,
    /** A shard holds no topology record, or another deployment's. */
    TOPOLOGY,
    /** A namespace's event rate disagrees with the one the shards record. */
    EVENT_RATE,
    /** A namespace's window, window mode or event rate puts its claims elsewhere than the shards record. */
    WINDOW,
    /** The embedded range table is full. */
    FULL,
    /** The embedded store's range log cannot be appended to or rewritten. */
    IO,
    /** Any other reply or failure. */
    ERROR,
    /** The embedded store is closing, or its slot file cannot be allocated, read or written (a disk full under it). */
    UNAVAILABLE;

    /** The lowercase word metrics and replies carry: {@code event_rate}. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }
}
