package dev.dedup.codec;

import com.dynatrace.hash4j.hashing.HashValue128;
import dev.dedup.fingerprint.Fingerprints;
import dev.dedup.wire.Limits;
import java.util.Arrays;

/**
 * A decoded batch: its namespace and, per item in request order, the id's fingerprint (key and route
 * halves, salted with the namespace), the owner's fingerprint and, when the worker sent them, the
 * message's event time in epoch seconds. Stores see only fingerprints; the raw ids never travel past
 * the decoder.
 *
 * <p>Instances are immutable once built; the arrays are shared, not copied, so callers must not
 * change them.
 */
public final class Batch {

    private final String namespace;
    private final int size;
    private final long[] keys;
    private final long[] routes;
    private final long[] owners;
    /** Event seconds per item, {@link #NO_EVENT_TIME} where an item has none; null when no item has one. */
    private final long[] seconds;

    /** The event second of an item sent without one ({@link Limits#NO_EVENT_TIME}). */
    public static final long NO_EVENT_TIME = Limits.NO_EVENT_TIME;
    /** The largest event second: a u32 in the binary form ({@link Limits#MAX_EVENT_SECOND}). */
    public static final long MAX_EVENT_SECOND = Limits.MAX_EVENT_SECOND;

    private Batch(String namespace, int size, long[] keys, long[] routes, long[] owners, long[] seconds) {
        this.namespace = namespace;
        this.size = size;
        this.keys = keys;
        this.routes = routes;
        this.owners = owners;
        this.seconds = seconds;
    }

    public String namespace() {
        return namespace;
    }

    public int size() {
        return size;
    }

    /** The part of item {@code i}'s id fingerprint that tells ids apart; never 0. */
    public long key(int i) {
        return keys[i];
    }

    /** The part of item {@code i}'s id fingerprint that chooses a bucket, shard or set. */
    public long route(int i) {
        return routes[i];
    }

    /** Item {@code i}'s owner fingerprint. */
    public long owner(int i) {
        return owners[i];
    }

    /** Item {@code i}'s event time in epoch seconds (1 to 2^32 - 1), or {@link #NO_EVENT_TIME}. */
    public long eventSecond(int i) {
        return seconds == null ? NO_EVENT_TIME : seconds[i];
    }

    /** Whether any item carries an event time. */
    public boolean hasEventTimes() {
        return seconds != null;
    }

    /** The position of the first item without an event time, or -1 when every item has one. */
    public int firstWithoutEventTime() {
        for (int i = 0; i < size; i++) {
            if (eventSecond(i) == NO_EVENT_TIME) {
                return i;
            }
        }
        return -1;
    }

    /** This batch with its event times dropped, for a namespace that does not file claims by event time. */
    public Batch withoutEventTimes() {
        return seconds == null ? this : new Batch(namespace, size, keys, routes, owners, null);
    }

    /** The items at {@code indexes[0..count)}, in that order, in a new batch of the same namespace. */
    public Batch subset(int[] indexes, int count) {
        long[] k = new long[count];
        long[] r = new long[count];
        long[] o = new long[count];
        long[] t = seconds == null ? null : new long[count];
        for (int i = 0; i < count; i++) {
            int at = indexes[i];
            k[i] = keys[at];
            r[i] = routes[at];
            o[i] = owners[at];
            if (t != null) {
                t[i] = seconds[at];
            }
        }
        return new Batch(namespace, count, k, r, o, t);
    }

    public static Builder builder(int expectedItems) {
        return new Builder(expectedItems);
    }

    /** Collects items in order, then salts them with the namespace in {@link #build(String)}. */
    public static final class Builder {
        private long[] keys;
        private long[] routes;
        private long[] owners;
        private long[] seconds;
        private int size;

        private Builder(int expectedItems) {
            int capacity = Math.max(4, Math.min(expectedItems, 1 << 16));
            keys = new long[capacity];
            routes = new long[capacity];
            owners = new long[capacity];
        }

        /** Adds one item from byte ranges of {@code idBytes} and {@code ownerBytes}. */
        public Builder add(byte[] idBytes, int idOff, int idLen, byte[] ownerBytes, int ownerOff, int ownerLen) {
            if (size == keys.length) {
                int capacity = keys.length * 2;
                keys = Arrays.copyOf(keys, capacity);
                routes = Arrays.copyOf(routes, capacity);
                owners = Arrays.copyOf(owners, capacity);
                if (seconds != null) {
                    seconds = Arrays.copyOf(seconds, capacity);
                }
            }
            HashValue128 id = Fingerprints.id(idBytes, idOff, idLen);
            keys[size] = Fingerprints.key(id);
            routes[size] = Fingerprints.route(id);
            owners[size] = Fingerprints.owner(ownerBytes, ownerOff, ownerLen);
            size++;
            return this;
        }

        /**
         * Adds one item with the message's event time, epoch seconds from 1 to {@link #MAX_EVENT_SECOND}
         * ({@link #NO_EVENT_TIME} for none).
         */
        public Builder add(
                byte[] idBytes, int idOff, int idLen, byte[] ownerBytes, int ownerOff, int ownerLen, long eventSecond) {
            if (eventSecond < NO_EVENT_TIME || eventSecond > MAX_EVENT_SECOND) {
                throw new IllegalArgumentException("event second out of range: " + eventSecond);
            }
            add(idBytes, idOff, idLen, ownerBytes, ownerOff, ownerLen);
            if (eventSecond != NO_EVENT_TIME) {
                if (seconds == null) {
                    seconds = new long[keys.length];
                }
                seconds[size - 1] = eventSecond;
            }
            return this;
        }

        public int size() {
            return size;
        }

        public Batch build(String namespace) {
            Fingerprints.Salt salt = Fingerprints.salt(namespace);
            for (int i = 0; i < size; i++) {
                keys[i] = salt.key(keys[i]);
                routes[i] = salt.route(routes[i]);
            }
            Batch batch = new Batch(namespace, size, keys, routes, owners, seconds);
            keys = routes = owners = seconds = null;
            return batch;
        }
    }
}
