package dev.dedup.agent.metrics;

/** Every metric the agent publishes; dotted lowercase names, dimensions as tags, never an id as a tag. */
public final class MetricNames {

    /**
     * Always 1; which build runs, tags {@code version} (the agent's) and {@code java} (the runtime's), so that a query
     * or a dashboard can tell agents of one deployment apart by build.
     */
    public static final String BUILD_INFO = "dedup.build.info";
    /** Items claimed, tag {@code verdict=new|retry|duplicate}. */
    public static final String CLAIMS = "dedup.claims";
    /**
     * Items claimed late: their event time a window or more behind their namespace's event clock, so that a claim
     * of which they could be a copy may have been dropped.
     */
    public static final String CLAIMS_LATE = "dedup.claims.late";
    /** Connections closed as soon as they were accepted: the agent held {@code max-connections} already. */
    public static final String CONNECTIONS_REFUSED = "dedup.http.connections.refused";
    /** Token files read again after a change, by result: {@code applied} or {@code refused}. */
    public static final String TOKEN_FILE_RELOADS = "dedup.token.file.reloads";
    /** TLS certificate files read again after a change, by result: {@code applied} or {@code refused}. */
    public static final String TLS_RELOADS = "dedup.tls.reloads";
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

    /**
     * Script calls per shard, tags {@code shard} and {@code op}: {@code claim}, {@code release}, {@code lookup} (a
     * previous shard list's claims, during a change of the list), {@code resize} (a fingerprint table's splits and
     * merges), {@code sweep}, {@code range_check}, {@code range_commit}, {@code topology}.
     */
    public static final String REDIS_SCRIPT = "dedup.redis.script";
    /**
     * Claims of a namespace filed by event time appended to a bucket beyond the records it was planned for (its
     * event rate is below the real one), tag {@code shard}.
     */
    public static final String REDIS_OVERFULL = "dedup.redis.overfull";
    /**
     * Buckets of namespaces filed by event time deleted once the namespace's event clock was two windows past their
     * second.
     */
    public static final String REDIS_TIMED_SWEPT = "dedup.redis.timed.swept";
    /**
     * 1 while a shard holds the topology record the agent expects, 0 when it lost its data or belongs
     * elsewhere, tag {@code shard}.
     */
    public static final String REDIS_SHARD_TOPOLOGY_OK = "dedup.redis.shard.topology.ok";

    /** Script calls of concurrent batches sent merged with others, tags {@code shard}, {@code script}. */
    public static final String REDIS_GATHERED = "dedup.redis.calls.gathered";
    /**
     * Buckets of a fingerprint table, tags {@code shard} and {@code table}: what it has grown to by splitting as
     * claims arrived (and shrunk to by merging as they ended).
     */
    public static final String REDIS_TABLE_BUCKETS = "dedup.redis.table.buckets";
    /** Records a fingerprint table holds (claims, and ended ones not yet dropped), tags {@code shard}, {@code table}. */
    public static final String REDIS_TABLE_CLAIMS = "dedup.redis.table.claims";
    /** Buckets a fingerprint table split or merged, tags {@code shard}, {@code op=split|merge}. */
    public static final String REDIS_TABLE_RESIZES = "dedup.redis.table.resizes";
    /**
     * Claim calls the shard sent back because another agent had split or merged one of their buckets since
     * this agent last saw the table (they are sent again, addressed anew), tag {@code shard}.
     */
    public static final String REDIS_STALE_CALLS = "dedup.redis.calls.stale";
    /** Memory a Redis shard uses, tag {@code shard}. */
    public static final String REDIS_MEMORY_USED = "dedup.redis.memory.used";
    /** A Redis shard's maxmemory (0: none), tag {@code shard}. */
    public static final String REDIS_MEMORY_MAX = "dedup.redis.memory.max";
    /**
     * 1 while a Redis shard's {@code maxmemory_policy} is {@code noeviction}, 0 while it may evict claims (which
     * turns duplicates into new), absent (NaN) when the shard does not say; tag {@code shard}.
     */
    public static final String REDIS_NOEVICTION = "dedup.redis.noeviction";
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
    public static final String TAG_VERSION = "version";
    public static final String TAG_JAVA = "java";

    private MetricNames() {}
}
