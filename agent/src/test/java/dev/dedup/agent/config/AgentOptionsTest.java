package dev.dedup.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The agent's options builder: its defaults, and a copy changed in one component. */
class AgentOptionsTest {

    @Test
    void aBuilderStartsAtTheDefaults_theEmbeddedStoreWithoutRedis() {
        AgentOptions built = AgentOptions.builder().build();
        assertEquals(
                new AgentOptions(HttpOptions.defaults(), EmbeddedStoreOptions.defaults(), WindowOptions.defaults()),
                built);
        assertEquals(RedisOptions.none(), built.redis());
        assertEquals(NearCacheOptions.defaults(), built.nearCache());
        assertEquals(built, AgentOptions.defaults());
    }

    @Test
    void toBuilder_keepsEveryComponent_butTheOnesChanged() {
        AgentOptions all = new AgentOptions(
                HttpOptions.builder().port(8080).build(),
                EmbeddedStoreOptions.defaults(),
                new WindowOptions(Duration.ofHours(2), Map.of("clicks", Duration.ofHours(48))),
                RedisOptions.builder(List.of("redis://a:1")).build(),
                new NearCacheOptions(4096));
        assertEquals(all, all.toBuilder().build());
        RedisOptions other = RedisOptions.builder(List.of("redis://b:1")).build();
        NearCacheOptions off = new NearCacheOptions(0);
        assertEquals(
                new AgentOptions(all.http(), all.embedded(), all.windows(), other, off),
                all.toBuilder().redis(other).nearCache(off).build());
    }
}
