package dev.dedup.agent.contract;

/**
 * The contract against one Valkey 8 shard with every namespace filed by event time: Tapjoy's layout
 * ({@code timed.lua}) on Valkey, as {@link RedisEventTimeContractIT} runs it on Redis.
 */
class ValkeyEventTimeContractIT extends ValkeyContractIT {

    @Override
    protected boolean eventTimes() {
        return true;
    }
}
