package dev.dedup.agent.metrics;

/** Every metric the agent publishes; dotted lowercase names, dimensions as tags, never an id as a tag. */
public final class MetricNames {

    /** Items claimed, tag {@code verdict=new|retry|duplicate}. */
    public static final String CLAIMS = "dedup.claims";
    /** Items released, tag {@code result=released|not_held}. */
    public static final String RELEASES = "dedup.releases";
    /** Items per accepted request, tag {@code endpoint=claims|releases}. */
    public static final String BATCH_ITEMS = "dedup.batch.items";
    /** Request latency, tags {@code endpoint}, {@code format=json|binary}, {@code outcome=ok|<error code>}. */
    public static final String REQUESTS = "dedup.http.requests";
    /** Rejected or failed requests, tag {@code kind=<error code>}. */
    public static final String ERRORS = "dedup.errors";
    /** Slots of the embedded store. */
    public static final String EMBEDDED_SLOTS = "dedup.embedded.slots";
    /** Occupied slots of the embedded store (live or expired but not yet replaced). */
    public static final String EMBEDDED_OCCUPIED = "dedup.embedded.slots.occupied";

    /** Script calls per shard, tags {@code shard}, {@code op=claim|release|sweep|range_check|range_commit}. */
    public static final String REDIS_SCRIPT = "dedup.redis.script";
    /** Live claims a full bucket forgot, tag {@code shard}. */
    public static final String REDIS_EVICTIONS = "dedup.redis.evictions";

    public static final String REDIS_OVERFULL = "dedup.redis.overfull";
    /**
     * 1 while a shard holds the topology record the agent expects, 0 when it lost its data or belongs
     * elsewhere, tag {@code shard}.
     */
    public static final String REDIS_SHARD_TOPOLOGY_OK = "dedup.redis.shard.topology.ok";

    /** Script calls of concurrent batches sent merged with others, tags {@code shard}, {@code script}. */
    public static final String REDIS_GATHERED = "dedup.redis.calls.gathered";
    /**
     * Claim and release calls on a Redis Cluster sent again with every level of their buckets declared (a
     * bucket's first level was full, or the call filled it), tag {@code shard}: buckets beyond their first
     * level, which more {@code --redis-buckets} avoid.
     */
    public static final String REDIS_LEVELS_DECLARED = "dedup.redis.calls.levels.declared";
    /**
     * Fingerprint buckets whose first level claim calls read (once per bucket and call), tag {@code shard};
     * with {@link #REDIS_BUCKET_CLAIMS_READ}, the mean claims a bucket held when read: what a new id's search
     * costs the shard, which more {@code --redis-buckets} lower (docs/redis.md#sizing-the-buckets).
     */
    public static final String REDIS_BUCKETS_READ = "dedup.redis.buckets.read";
    /** Claims held by the first levels counted in {@link #REDIS_BUCKETS_READ}, tag {@code shard}. */
    public static final String REDIS_BUCKET_CLAIMS_READ = "dedup.redis.bucket.claims.read";
    /** Buckets and streams moved by a change of the shard list, tag {@code unit}. */
    public static final String REDIS_MOVED = "dedup.redis.moved";
    /** Claims and range keys moved by a change of the shard list. */
    public static final String REDIS_MOVED_ENTRIES = "dedup.redis.moved.entries";
    /** Ranges of ordered streams checked, tag {@code done=none|partial|all}: how much was committed already. */
    public static final String RANGES_CHECKED = "dedup.ranges.checked";
    /** Ranges of ordered streams committed. */
    public static final String RANGES_COMMITTED = "dedup.ranges.committed";
    /** Store failures by kind ({@code timeout}, {@code connection}, {@code oom}, ...). */
    public static final String STORE_ERRORS = "dedup.store.errors";

    public static final String TAG_VERDICT = "verdict";
    public static final String TAG_SHARD = "shard";
    public static final String TAG_RESULT = "result";
    public static final String TAG_ENDPOINT = "endpoint";
    public static final String TAG_FORMAT = "format";
    public static final String TAG_OUTCOME = "outcome";
    public static final String TAG_KIND = "kind";
    public static final String TAG_DONE = "done";

    private MetricNames() {}
}
