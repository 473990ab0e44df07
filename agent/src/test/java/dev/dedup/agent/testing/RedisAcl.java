package dev.dedup.agent.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * The ACL rules the shipped Redis tier gives its users (deploy/kubernetes/redis/start-redis.sh,
 * start-sentinel.sh, redis-cluster/start-redis-cluster.sh and docs/redis.md write them; the deploy module's tests
 * check that they still do), so that the agent's tests run against exactly what is shipped.
 */
public final class RedisAcl {

    private RedisAcl() {}

    /**
     * The agent's user on a data node, with the default prefix: its keys and its release channel, and only the
     * commands the agent sends ({@code EVALSHA}, {@code EVAL} and {@code SCRIPT LOAD} of its scripts, the commands
     * the scripts call, {@code SUBSCRIBE} to the release channel, {@code PING}, {@code WAIT}, {@code INFO} and
     * {@code CONFIG GET} for the eviction check and memory gauges, and on a Redis Cluster what Lettuce reads the
     * topology with). {@code HELLO} and {@code AUTH} need no rule; {@link #CLIENT_SETINFO} is added on servers that
     * have it.
     */
    public static final String AGENT = "resetchannels ~dd* &dd:* -@all"
            + " +evalsha +eval +script|load"
            + " +get +set +getrange +setrange +append +del +hget +hset +hmget +hincrby +sadd +smembers +publish"
            + " +subscribe +ping +wait +info +config|get +cluster|nodes +asking";

    /** The agent's user on a sentinel: where the primary is, and nothing that changes what the sentinel watches. */
    public static final String AGENT_ON_SENTINEL =
            "resetchannels -@all +sentinel|master +sentinel|get-master-addr-by-name +ping";

    /**
     * The rule the start scripts add to the agent's users on servers of Redis 7.2 and later (and Valkey), where Lettuce
     * names itself with {@code CLIENT SETINFO} on connecting; older servers refuse to load a rule naming a command
     * they do not have, and Lettuce does not send it to them.
     */
    public static final String CLIENT_SETINFO = "+client|setinfo";

    /** {@code rules} for a server of {@code binary}: with {@link #CLIENT_SETINFO} unless it is Redis 7.0. */
    public static String forServer(String rules, RedisServer.Binary binary) {
        return binary == RedisServer.Binary.REDIS ? rules : rules + " " + CLIENT_SETINFO;
    }

    /** The sentinels' user on a data node ({@code sentinel auth-user}): what watching and failing over need. */
    public static final String SENTINEL = "allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role"
            + " +publish +info +client|setname +client|kill +script|kill";

    /** The sentinels' user on the other sentinels ({@code sentinel sentinel-user}): hellos, pings and votes. */
    public static final String SENTINEL_ON_SENTINEL = "resetchannels &__sentinel__:hello -@all +ping +publish"
            + " +client|setname +sentinel|is-master-down-by-addr";

    /** {@code rules} split into the arguments of {@code --user NAME on >PASSWORD ...} or {@code ACL SETUSER}. */
    public static List<String> args(String rules) {
        return List.of(rules.split(" "));
    }

    /**
     * A data node's {@code --user} arguments for a server of {@code binary}: the agent's user {@code dedup} with
     * {@code password} and {@link #AGENT}, then the default user off.
     */
    public static List<String> agentOnly(String password, RedisServer.Binary binary) {
        List<String> args = new ArrayList<>(List.of("--user", "dedup", "on", ">" + password));
        args.addAll(args(forServer(AGENT, binary)));
        args.addAll(List.of("--user", "default", "off"));
        return args;
    }
}
