package dev.dedup.agent.store.redis.topology;

import dev.dedup.agent.store.redis.access.RedisKeys;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The text of a shard's topology record: {@code dedup-topology v1 deployment=<id> epoch=<n> shard=<i> of=<k>},
 * with {@code shard=retired} for a shard a declared change took out of the list. Written and compared as bytes
 * by the scripts, so two agents agree on a record only when they write it the same.
 */
final class TopologyRecord {

    private static final String PREFIX = "dedup-topology v1 ";
    static final String RETIRED = "retired";

    private TopologyRecord() {}

    static byte[] of(String deployment, long epoch, int shard, int of) {
        return of(deployment, epoch, String.valueOf(shard), of);
    }

    static byte[] of(String deployment, long epoch, String shard, int of) {
        return (PREFIX + "deployment=" + deployment + " epoch=" + epoch + " shard=" + shard + " of=" + of)
                .getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The fields of a record ({@code deployment}, {@code epoch}, {@code shard}, {@code of}), or null when the text
     * is not one: another prefix, a field missing, or a number that is not one.
     */
    static Map<String, String> parse(String record) {
        if (!record.startsWith(PREFIX)) {
            return null;
        }
        Map<String, String> fields = new LinkedHashMap<>();
        for (String pair : record.substring(PREFIX.length()).split(" ")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                fields.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
        }
        for (String name : List.of("deployment", "epoch", "shard", "of")) {
            if (!fields.containsKey(name)
                    || (!name.equals("deployment")
                            && !fields.get(name).matches("\\d{1,9}")
                            && !(name.equals("shard") && fields.get(name).equals(RETIRED)))) {
                return null;
            }
        }
        return fields;
    }

    /**
     * Where each shard keeps its record: {@code <prefix>:topology}, or on a cluster each group's {@code
     * <prefix>{<group tag>}:topology}.
     */
    static byte[] key(RedisKeys keys, int shard) {
        return keys.named(shard, ":topology");
    }

    static String text(byte[] record) {
        return new String(record, StandardCharsets.US_ASCII);
    }
}
