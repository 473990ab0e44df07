package dev.dedup.agent.contract;

/**
 * {@link RedisAclContractIT} with every namespace filed by event time: the time buckets of {@code timed.lua} through
 * the shipped tier's ACL.
 */
class RedisAclEventTimeContractIT extends RedisAclContractIT {

    @Override
    protected boolean eventTimes() {
        return true;
    }
}
