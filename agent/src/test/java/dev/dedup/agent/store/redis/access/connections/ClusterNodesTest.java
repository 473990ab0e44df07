package dev.dedup.agent.store.redis.access.connections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cluster URI becomes one seed per node it names, each with its TLS, user and password. */
class ClusterNodesTest {

    @Test
    void everyNodeOfAClusterUriGetsItsTlsUserAndPassword() {
        List<RedisURI> seeds = ClusterNodes.seeds("rediss-cluster://app:pw@n1:7000, n2:7001", Duration.ofSeconds(3));
        assertEquals(2, seeds.size());
        assertEquals("n1", seeds.get(0).getHost());
        assertEquals(7001, seeds.get(1).getPort());
        for (RedisURI seed : seeds) {
            assertTrue(seed.isSsl());
            RedisCredentials credentials = credentials(seed);
            assertEquals("app", credentials.getUsername());
            assertEquals("pw", new String(credentials.getPassword()));
            assertEquals(Duration.ofSeconds(3), seed.getTimeout());
        }
        RedisURI plain = ClusterNodes.seeds("redis-cluster://n1:7000", Duration.ofSeconds(1))
                .get(0);
        assertFalse(plain.isSsl());
        assertFalse(credentials(plain).hasUsername());
    }

    private static RedisCredentials credentials(RedisURI uri) {
        return uri.getCredentialsProvider().resolveCredentials().block();
    }
}
