package dev.dedup.agent.store.redis.access;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import io.lettuce.core.RedisCommandExecutionException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Redis error replies become 503s of a kind, naming the shard (or a cluster's group). */
class RedisFailuresTest {

    private static StoreUnavailableException translated(String reply) {
        return RedisFailures.translate(
                "redis-cluster://n1:7000 group 3", new CompletionException(new RedisCommandExecutionException(reply)));
    }

    @Test
    void aClusterChangingUnderACallIsKindCluster() {
        for (String reply : new String[] {
            "CLUSTERDOWN The cluster is down",
            "TRYAGAIN Multiple keys request during rehashing of slot",
            "MOVED 3999 127.0.0.1:6381",
            "ASK 3999 127.0.0.1:6381"
        }) {
            StoreUnavailableException e = translated(reply);
            assertEquals(FailureKind.CLUSTER, e.kind(), reply);
            assertTrue(e.getMessage().contains("group 3") && e.getMessage().contains(reply), e.getMessage());
        }
    }

    @Test
    void otherRepliesKeepTheirKinds() {
        assertEquals(
                FailureKind.READONLY,
                translated("READONLY You can't write against a read only replica.")
                        .kind());
        assertEquals(
                FailureKind.TOPOLOGY,
                translated("DEDUPTOPOLOGY shard has no topology record").kind());
        assertEquals(
                FailureKind.ERROR,
                translated("CROSSSLOT Keys in request don't hash to the same slot")
                        .kind());
    }
}
