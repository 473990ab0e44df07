package dev.dedup.agent.contract;

import dev.dedup.agent.config.WindowOptions;
import java.util.Map;

/**
 * The contract against one Redis shard with every namespace filed by event time: the same verdicts,
 * releases, windows and rejections as the fingerprint layout, through the time buckets of
 * {@code timed.lua}. A low event rate (2 buckets a second) and 16-entry levels make the suite's claims
 * share buckets and spill into levels.
 */
class RedisEventTimeContractTest extends RedisContractTest {

    @Override
    protected boolean eventTimes() {
        return true;
    }

    @Override
    protected WindowOptions windows() {
        return new WindowOptions(WINDOW, Map.of(SHORT_NS, SHORT_WINDOW), Map.of("*", 200));
    }
}
