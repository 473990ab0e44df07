package dev.dedup.agent.store.redis;

import dev.dedup.agent.testing.RedisServer;

/**
 * {@link RedisSentinelFailoverIT} on Valkey 8: a primary, a replica and three sentinels, all
 * {@code valkey-server}; the primary is killed and the agent follows the promoted replica, forgetting nothing
 * replicated. Fails, not skips, when {@code valkey-server} is missing.
 */
class ValkeySentinelFailoverIT extends RedisSentinelFailoverIT {

    @Override
    protected RedisServer.Binary binary() {
        return RedisServer.Binary.VALKEY;
    }
}
