package dev.dedup.examples.testing;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A Kafka member's command line ({@link ConsumerMember}, {@link ShareMember}): {@code bootstrap topic group jdbcUrl
 * namespace}, then options, each {@code name=value} or a bare flag. An option the member does not know fails.
 */
record MemberArgs(
        String bootstrap, String topic, String group, String jdbc, String namespace, Map<String, String> options) {

    static MemberArgs parse(String[] args, Set<String> known) {
        Map<String, String> options = new HashMap<>();
        for (int i = 5; i < args.length; i++) {
            String[] kv = args[i].split("=", 2);
            if (!known.contains(kv[0])) {
                throw new IllegalArgumentException(args[i]);
            }
            options.put(kv[0], kv.length == 2 ? kv[1] : "");
        }
        return new MemberArgs(args[0], args[1], args[2], args[3], args[4], options);
    }

    boolean flag(String name) {
        return options.containsKey(name);
    }

    long number(String name, long otherwise) {
        return options.containsKey(name) ? Long.parseLong(options.get(name)) : otherwise;
    }

    int integer(String name, int otherwise) {
        return (int) number(name, otherwise);
    }
}
