package dev.dedup.agent.contract;

import org.junit.jupiter.api.AfterAll;

/**
 * The contract against one Redis shard that lets the agent in only as the user the shipped tier gives it
 * ({@link dev.dedup.agent.testing.RedisAcl#AGENT}: its keys, its channel, and the commands it sends, no more), the
 * default user off: every claim, release, sliding renewal and event clock of the suite goes through that ACL, and the
 * server's {@code ACL LOG} is empty at the end, so that a command the agent needs and the ACL lacks fails here.
 */
class RedisAclContractIT extends RedisContractIT {

    @Override
    protected boolean acl() {
        return true;
    }

    /** Runs before the suite stops the shards. */
    @AfterAll
    void nothingWasRefused() throws Exception {
        shardServers().assertNothingRefused();
    }
}
