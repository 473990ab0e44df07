package dev.dedup.agent.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fresh redis-servers, one shard each, {@code shard-0 ..} under a folder, stopped after the test: the list of them
 * in order. A test takes them as a parameter ({@code @Shards(3) RedisShards shards}, see {@link Shards}); a class
 * whose every test wants the same count registers them on a field ({@code @RegisterExtension}), started before
 * each test under the folder {@code dir} gives then.
 */
public final class RedisShards extends AbstractList<RedisServer>
        implements BeforeEachCallback, AfterEachCallback, AutoCloseable {

    private final int count;
    private final Supplier<Path> dir;
    private final List<RedisServer> servers = new ArrayList<>();

    /** {@code dir} is read before each test, once the test's temporary folder is set. */
    public RedisShards(int count, Supplier<Path> dir) {
        this.count = count;
        this.dir = dir;
    }

    /** Starts {@code count} servers under {@code dir}; {@link #close()} stops them. */
    public static RedisShards start(int count, Path dir) throws IOException, InterruptedException {
        RedisShards shards = new RedisShards(count, () -> dir);
        shards.start();
        return shards;
    }

    private void start() throws IOException, InterruptedException {
        try {
            for (int i = 0; i < count; i++) {
                servers.add(RedisServer.start(dir.get().resolve("shard-" + i)));
            }
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        close();
    }

    /** Stops every server. */
    @Override
    public void close() {
        servers.forEach(RedisServer::close);
        servers.clear();
    }

    /** Their URIs in order, as {@code --redis} takes them. */
    public List<String> uris() {
        return servers.stream().map(RedisServer::uri).toList();
    }

    @Override
    public RedisServer get(int index) {
        return servers.get(index);
    }

    @Override
    public int size() {
        return servers.size();
    }
}
