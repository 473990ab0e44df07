package dev.dedup.agent.store.embedded;

import dev.dedup.wire.SequenceRange;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The committed ranges of one stream: disjoint intervals that never touch (overlapping and adjacent
 * commits merge), each with the epoch millisecond it ends. Not thread-safe: {@link RangeTable} locks.
 */
final class StreamRanges {

    /** A stored interval: inclusive ends, and when it is forgotten. */
    record Interval(BigInteger from, BigInteger to, long endMillis) {}

    private final TreeMap<BigInteger, Interval> byFrom = new TreeMap<>();

    /**
     * Records {@code [from, to]}, merged with every live interval it overlaps or touches; the result ends
     * at {@code endMillis}. Ended intervals in the way are dropped. Returns the change in intervals.
     */
    int commit(BigInteger from, BigInteger to, long endMillis, long nowMillis) {
        int before = byFrom.size();
        BigInteger lo = from;
        BigInteger hi = to;
        BigInteger reach = to.add(BigInteger.ONE);
        Map.Entry<BigInteger, Interval> floor = byFrom.floorEntry(from);
        BigInteger start = floor == null ? from : floor.getKey();
        Iterator<Interval> it = byFrom.tailMap(start, true).values().iterator();
        while (it.hasNext()) {
            Interval i = it.next();
            if (i.from().compareTo(reach) > 0) {
                break;
            }
            if (i.endMillis() <= nowMillis) {
                it.remove();
                continue;
            }
            if (i.to().add(BigInteger.ONE).compareTo(from) < 0) {
                continue; // before the range, not touching it
            }
            lo = lo.min(i.from());
            hi = hi.max(i.to());
            it.remove();
        }
        byFrom.put(lo, new Interval(lo, hi, endMillis));
        return byFrom.size() - before;
    }

    /**
     * How many intervals committing {@code [from, to]} would add: 1 less the live intervals it overlaps
     * or touches (so 0 for a commit that extends a range, negative for one that joins several).
     */
    int growth(BigInteger from, BigInteger to, long nowMillis) {
        int growth = 1;
        BigInteger reach = to.add(BigInteger.ONE);
        Map.Entry<BigInteger, Interval> floor = byFrom.floorEntry(from);
        for (Interval i :
                byFrom.tailMap(floor == null ? from : floor.getKey(), true).values()) {
            if (i.from().compareTo(reach) > 0) {
                break;
            }
            if (i.endMillis() > nowMillis && i.to().add(BigInteger.ONE).compareTo(from) >= 0) {
                growth--;
            }
        }
        return growth;
    }

    /** The maximal parts of {@code asked} inside live intervals, in order. */
    List<SequenceRange> done(SequenceRange asked, long nowMillis) {
        List<SequenceRange> parts = new ArrayList<>(1);
        Map.Entry<BigInteger, Interval> floor = byFrom.floorEntry(asked.from());
        BigInteger start = floor == null ? asked.from() : floor.getKey();
        for (Interval i : byFrom.tailMap(start, true).values()) {
            if (i.from().compareTo(asked.to()) > 0) {
                break;
            }
            if (i.endMillis() > nowMillis && i.to().compareTo(asked.from()) >= 0) {
                parts.add(new SequenceRange(i.from().max(asked.from()), i.to().min(asked.to())));
            }
        }
        return parts;
    }

    /** Drops every ended interval; returns how many. */
    int expire(long nowMillis) {
        int before = byFrom.size();
        byFrom.values().removeIf(i -> i.endMillis() <= nowMillis);
        return before - byFrom.size();
    }

    int size() {
        return byFrom.size();
    }

    Iterable<Interval> intervals() {
        return byFrom.values();
    }
}
