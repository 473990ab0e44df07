package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.store.IncompatibleDeploymentException;

/**
 * What an agent starting at the same moment as another sees while the other stamps the shards one by one: a
 * shard stamped under the other's deployment id as this one stamps it, or shards with a record beside shards
 * still without one. Read again after a pause it is the other's finished stamp, which this agent then agrees
 * with or refuses as usual; {@code refusal} is thrown if it never settles.
 */
final class StartRace extends RuntimeException {

    private static final long serialVersionUID = 1L;
    final transient IncompatibleDeploymentException refusal;

    StartRace(IncompatibleDeploymentException refusal) {
        super(refusal.getMessage(), null, false, false);
        this.refusal = refusal;
    }
}
