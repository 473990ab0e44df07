package dev.dedup.examples.testing;

import dev.dedup.agent.testing.RedisServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The agents a pipeline test claims through: {@link Store#EMBEDDED} is one node (one agent, its embedded store, every
 * worker of the node sharing it); {@link Store#REDIS} is two Redis shards with an append-only file fsynced on every
 * write and two agents on them (one per worker node), so that a worker on either sees every claim.
 */
public final class Stack implements AutoCloseable {

    public enum Store {
        EMBEDDED,
        REDIS
    }

    private final Store store;
    private final List<RedisServer> shards = new ArrayList<>();
    private final List<Agent> agents = new ArrayList<>();

    private Stack(Store store) {
        this.store = store;
    }

    public static Stack start(Store store, Path dir) throws Exception {
        Stack s = new Stack(store);
        try {
            if (store == Store.EMBEDDED) {
                s.agents.add(Agent.embedded("agent", dir.resolve("agent")));
            } else {
                for (int i = 0; i < 2; i++) {
                    s.shards.add(RedisServer.startWithAof(dir.resolve("redis-" + i)));
                }
                List<String> uris = s.shards.stream().map(RedisServer::uri).toList();
                for (int i = 0; i < 2; i++) {
                    s.agents.add(Agent.redis("agent-" + i, dir.resolve("agent-" + i), uris));
                }
            }
            return s;
        } catch (Exception e) {
            s.close();
            throw e;
        }
    }

    public Store store() {
        return store;
    }

    /** The agent worker {@code i} talks to: its node's. */
    public Agent agentFor(int worker) {
        return agents.get(worker % agents.size());
    }

    public List<Agent> agents() {
        return agents;
    }

    public List<RedisServer> shards() {
        return shards;
    }

    /** The agent of worker {@code worker} killed ({@code kill -9}), down for {@code down}, then started again. */
    public void restartAgent(int worker, Duration down) throws Exception {
        agentFor(worker).kill9();
        Thread.sleep(down.toMillis());
        agentFor(worker).restart();
    }

    /** Redis shard {@code shard} killed, down for {@code down}, then started again with its append-only file. */
    public void restartShard(int shard, Duration down) throws Exception {
        shards.get(shard).kill();
        Thread.sleep(down.toMillis());
        shards.get(shard).restart();
    }

    /** How many workers the test runs: 2 on Redis (two nodes), {@code embedded} on the embedded store's one node. */
    public int workers(int embedded) {
        return store == Store.REDIS ? 2 : embedded;
    }

    @Override
    public void close() {
        for (Agent a : agents) {
            try {
                a.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        shards.forEach(RedisServer::close);
    }
}
