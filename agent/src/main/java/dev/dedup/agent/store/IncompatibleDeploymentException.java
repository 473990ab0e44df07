package dev.dedup.agent.store;

/**
 * The store holds what another configuration wrote: another shard list, another deployment, a namespace kept
 * elsewhere, a Redis that may evict. Thrown at start, before the agent serves; the agent exits 2 with the
 * message, which names what the store records and what to change.
 */
public class IncompatibleDeploymentException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public IncompatibleDeploymentException(String message) {
        super(message);
    }
}
