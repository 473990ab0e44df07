package dev.dedup.agent.store.redis.access.connections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.agent.store.redis.access.RedisFailures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Redis error replies and Lettuce's refusals become 503s of a kind, naming the shard (or a cluster's group). */
class LettuceFailuresTest {

    private static StoreUnavailableException translated(String reply) {
        return LettuceFailures.translate(
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

    @Test
    void aReplyIsReadByItsCode() {
        assertEquals(
                RedisFailures.ReplyCode.TRYAGAIN,
                LettuceFailures.code(
                        new CompletionException(new RedisCommandExecutionException("TRYAGAIN slot moving"))));
        assertEquals(RedisFailures.ReplyCode.OOM, LettuceFailures.code(new RedisCommandExecutionException("OOM")));
        assertEquals(RedisFailures.ReplyCode.OTHER, LettuceFailures.code(new RedisCommandExecutionException("ERR x")));
        assertNull(LettuceFailures.code(new RedisException("Connection closed")));
    }

    @Test
    void lettucesRefusalsAreConnectionOrOverload() {
        // the messages Lettuce 7 raises, as plain RedisExceptions, when it will not send a command
        for (String refused : new String[] {
            "Connection closed", "Connection is closed", "Currently not connected. Commands are rejected."
        }) {
            assertEquals(
                    FailureKind.CONNECTION,
                    LettuceFailures.translate("s0", new RedisException(refused)).kind());
        }
        for (String full : new String[] {
            "Request queue size exceeded: 2. Commands are not accepted until the queue size drops.",
            "Command buffer size exceeded: 2. Commands are not accepted until the queue size drops."
        }) {
            StoreUnavailableException e = LettuceFailures.translate("s0", new RedisException(full));
            assertEquals(FailureKind.OVERLOADED, e.kind(), full);
            assertTrue(e.getMessage().contains("redis-max-in-flight"), e.getMessage());
        }
    }
}
