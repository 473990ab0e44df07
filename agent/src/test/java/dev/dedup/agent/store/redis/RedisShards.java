package dev.dedup.agent.store.redis;

import dev.dedup.agent.testing.RedisServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fresh redis-servers for every test of a class, {@code shard-0 ..} under the test's folder, stopped after it;
 * the list of them in order.
 */
final class RedisShards extends AbstractList<RedisServer> implements BeforeEachCallback, AfterEachCallback {

    private final int count;
    private final Supplier<Path> dir;
    private final List<RedisServer> servers = new ArrayList<>();

    /** {@code dir} is read before each test, once the test's temporary folder is set. */
    RedisShards(int count, Supplier<Path> dir) {
        this.count = count;
        this.dir = dir;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        for (int i = 0; i < count; i++) {
            servers.add(RedisServer.start(dir.get().resolve("shard-" + i)));
        }
    }

    @Override
    public void afterEach(ExtensionContext context) {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    @Override
    public RedisServer get(int index) {
        return servers.get(index);
    }

    @Override
    public int size() {
        return servers.size();
    }

    /** The topology record {@code shard} holds, or null. */
    static String record(RedisServer shard) throws Exception {
        Object held = shard.call("GET", "dd:topology");
        return held == null ? null : new String((byte[]) held, StandardCharsets.US_ASCII);
    }
}
