package dev.dedup.agent.nearcache;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.cache.CaffeineStatsCounter;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Ids this agent claimed recently, with the owner that holds the claim and when the claim ends. Entries
 * are found by the top 56 bits of the id's 64-bit key (namespace-salted), the part Redis keeps and
 * publishes on release, and hit only when the whole key matches: two ids sharing those bits replace each
 * other, which forgets, never confuses. An entry never outlives its claim (per-entry expiry on the injected
 * clock), is bounded in number, and can be dropped one by one (a release) or all at once (the release
 * channel was lost).
 */
public final class NearCache {

    /** The claim an entry stands for. */
    record Claim(long key, long owner, long expiresAtMillis) {
    }

    private final Cache<Long, Claim> cache;
    private final LongSupplier clockMillis;

    public NearCache(long maxEntries, LongSupplier clockMillis, MeterRegistry registry) {
        this.clockMillis = clockMillis;
        this.cache = Caffeine.newBuilder()
                .maximumSize(maxEntries)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clockMillis.getAsLong()))
                .expireAfter(new Expiry<Long, Claim>() {
                    @Override
                    public long expireAfterCreate(Long key, Claim claim, long currentTime) {
                        return remainingNanos(claim);
                    }

                    @Override
                    public long expireAfterUpdate(Long key, Claim claim, long currentTime, long currentDuration) {
                        return remainingNanos(claim);
                    }

                    @Override
                    public long expireAfterRead(Long key, Claim claim, long currentTime, long currentDuration) {
                        return currentDuration;
                    }
                })
                .recordStats(() -> new CaffeineStatsCounter(registry, "near_cache"))
                .build();
    }

    private long remainingNanos(Claim claim) {
        return TimeUnit.MILLISECONDS.toNanos(Math.max(0, claim.expiresAtMillis() - clockMillis.getAsLong()));
    }

    /** The live claim of an id, or null. */
    Claim get(long key) {
        Claim c = cache.getIfPresent(key >>> 8);
        return c != null && c.key() == key && c.expiresAtMillis() > clockMillis.getAsLong() ? c : null;
    }

    void put(long key, long owner, long expiresAtMillis) {
        cache.put(key >>> 8, new Claim(key, owner, expiresAtMillis));
    }

    /** Drops the id whose key is {@code key}. */
    public void invalidate(long key) {
        invalidateField(key >>> 8);
    }

    /** Drops the id whose key's top 56 bits are {@code field} (as published on release). */
    public void invalidateField(long field) {
        cache.invalidate(field);
    }

    public void invalidateAll() {
        cache.invalidateAll();
    }

    public long size() {
        return cache.estimatedSize();
    }

    public double hitRatio() {
        return cache.stats().hitRate();
    }

    public long hits() {
        return cache.stats().hitCount();
    }

    public long misses() {
        return cache.stats().missCount();
    }
}
