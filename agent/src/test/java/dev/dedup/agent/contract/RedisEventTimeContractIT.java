package dev.dedup.agent.contract;

/**
 * The contract against one Redis shard with every namespace filed by event time: the same verdicts,
 * releases, windows and rejections as the fingerprint layout, through the time buckets of
 * {@code timed.lua}. A low event rate (2 buckets a second) and 16 planned records a bucket make the
 * suite's claims share buckets and overfill them.
 */
class RedisEventTimeContractIT extends RedisContractIT {

    @Override
    protected boolean eventTimes() {
        return true;
    }
}
