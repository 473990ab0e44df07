package dev.dedup.spark;

import dev.dedup.client.Claims;
import dev.dedup.wire.Limits;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * Deduplicates any {@code Dataset<Row>}, batch or streaming: each row is claimed at the executor's own agent, one
 * request per chunk of rows, and either the rows this job is to process are kept ({@link #claimAndKeep}) or every
 * row gets its verdict in a column ({@link #withVerdicts}). Every input column is kept as it is.
 *
 * <pre>{@code
 * DedupTransform dedup = DedupTransform.builder("clicks")
 *         .idFromHeader("message-id")   // the producer's id; never the record key
 *         .build();                     // owner: the Kafka source's topic, partition, offset
 *
 * spark.readStream().format("kafka").option("subscribe", "clicks").option("includeHeaders", "true").load()
 *         .writeStream()
 *         .foreachBatch((batch, batchId) -> {
 *             Dataset<Row> unique = dedup.claimAndKeep(batch); // NEW and RETRY rows, every column
 *             // ... the job's own work; write with batchId in one transaction
 *         })
 *         .start();
 * }</pre>
 *
 * <p><b>The owner</b> is where this copy of the message sits, written as {@link dev.dedup.client.Owners} writes it:
 * a task Spark runs again re-reads the same rows with the same owners, so its claims answer {@code retry} and its
 * rows are kept again; another copy of a message sits at another offset and answers {@code duplicate}. So a failed
 * task loses nothing, and what it wrote before failing must be absorbed by the sink (write a micro-batch with its
 * batch id in one transaction, or use a sink that is idempotent by batch, as Spark's file sink is).
 *
 * <p><b>The agent</b> is the executor's own, as its pod template tells the executor: {@code DEDUP_URL} (default
 * {@code http://127.0.0.1:7070}) and {@code DEDUP_TOKEN} when the agent has a token. A chunk the agent cannot
 * answer (an agent restart, a Redis shard down: 503) is sent again for up to the {@linkplain Builder#patience
 * patience}, then the task fails and Spark retries it; a rejected request (4xx: a missing token) fails the task at
 * once. No row is ever dropped without a {@code duplicate} verdict.
 *
 * <p>Each action on the result claims again, and so does the sampling job of a sort: rows answered {@code new} the
 * first time answer {@code retry} the second (both mean: process it). {@code persist} a result that is read more
 * than once, which also saves the requests. Make one transform per query, on the driver, and use it
 * for every micro-batch; it is thread-safe.
 */
public final class DedupTransform {

    /** The column {@link #withVerdicts} adds, unless {@link Builder#verdictColumn} names another. */
    public static final String DEFAULT_VERDICT_COLUMN = "dedup_verdict";
    /** Rows per claim request, unless {@link Builder#chunk} says otherwise. */
    public static final int DEFAULT_CHUNK = 1_000;
    /** The largest chunk: the highest {@code --max-batch} an agent accepts. */
    public static final int MAX_CHUNK = 1_000_000;
    /** How long a task waits for its agent, unless {@link Builder#patience} says otherwise: a sidecar's restart. */
    public static final Duration DEFAULT_PATIENCE = Claims.DEFAULT_PATIENCE;

    private final String namespace;
    private final ClaimColumns columns;
    private final int chunk;
    private final Duration patience;
    private final List<String> agents;
    private final String token;
    private final String verdictColumn;
    private VerdictCounts counts; // registered by the first transform, on the driver

    private DedupTransform(Builder b) {
        this.namespace = b.namespace;
        this.columns = new ClaimColumns(
                b.idHeader,
                b.idColumn,
                b.idExpression,
                b.ownerKind,
                b.ownerColumns,
                b.ownerExpression,
                b.eventTime,
                b.sourceEventTime);
        this.chunk = b.chunk;
        this.patience = b.patience;
        this.agents = List.copyOf(b.agents);
        this.token = b.token;
        this.verdictColumn = b.verdictColumn;
    }

    /**
     * Settings of a transform claiming in {@code namespace}: every job whose copies must meet (two queries on one
     * topic, a batch backfill and the stream) claims in the same one.
     *
     * @throws IllegalArgumentException when the namespace is empty or longer than the contract allows
     */
    public static Builder builder(String namespace) {
        return new Builder(namespace);
    }

    /**
     * Claims every row and keeps those answered {@code new} or {@code retry} (this owner's to process again: a task
     * run again, or a batch read again), with the input's columns, in each partition's order. Not Spark's
     * {@code dropDuplicates}: it keeps no state in the query, it claims. Lazy, as any transformation: the claims are
     * made each time an action (or a streaming trigger) runs it, so a Dataset used by two actions claims twice, the
     * second time answered {@code retry} and kept again; {@code persist()} it to claim once.
     *
     * @throws IllegalArgumentException when the Dataset lacks a column the settings name, naming it
     */
    public Dataset<Row> claimAndKeep(Dataset<Row> rows) {
        return transform(rows, false);
    }

    /**
     * Every row, with the input's columns and then the verdict: {@code new}, {@code retry} or {@code duplicate}, a
     * non-null string column ({@value #DEFAULT_VERDICT_COLUMN} unless named otherwise). For jobs that route
     * duplicates elsewhere, or count them, instead of dropping them.
     *
     * @throws IllegalArgumentException when the Dataset lacks a column the settings name, or already has the
     *     verdict column, naming it
     */
    public Dataset<Row> withVerdicts(Dataset<Row> rows) {
        return transform(rows, true);
    }

    /**
     * The verdicts of this transform's successful tasks so far, all Datasets it transformed together.
     *
     * @throws IllegalStateException before the first Dataset is transformed (the counters belong to its Spark
     *     application, and are made then)
     */
    public synchronized VerdictCounts counts() {
        if (counts == null) {
            throw new IllegalStateException("no Dataset was transformed yet: the counters are made by the first");
        }
        return counts;
    }

    private synchronized VerdictCounts counts(Dataset<Row> rows) {
        if (counts == null) {
            counts = VerdictCounts.register(rows.sparkSession().sparkContext());
        }
        return counts;
    }

    private Dataset<Row> transform(Dataset<Row> rows, boolean markAll) {
        Objects.requireNonNull(rows, "rows");
        StructType input = rows.schema();
        if (markAll && ClaimColumns.index(input, verdictColumn) >= 0) {
            throw new IllegalArgumentException("verdictColumn: the Dataset has a column " + verdictColumn
                    + " already; name another with verdictColumn(...)");
        }
        ClaimColumns.Resolved resolved = columns.resolve(rows);
        ClaimTask task = new ClaimTask(
                namespace,
                resolved.reader,
                resolved.width,
                markAll,
                chunk,
                patience,
                agents,
                token,
                counts(rows).accumulators());
        StructType output = markAll ? input.add(verdictColumn, DataTypes.StringType, false) : input;
        return resolved.rows.mapPartitions(task, Encoders.row(output));
    }

    /** Settings of a {@link DedupTransform}; each is checked when set, naming the setting and the value. */
    public static final class Builder {
        private final String namespace;
        private String idHeader;
        private String idColumn;
        private Column idExpression;
        private RowReader.OwnerKind ownerKind = RowReader.OwnerKind.KAFKA;
        private String[] ownerColumns = {"topic", "partition", "offset"};
        private Column ownerExpression;
        private Column eventTime;
        private boolean sourceEventTime = true;
        private int chunk = DEFAULT_CHUNK;
        private Duration patience = DEFAULT_PATIENCE;
        private List<String> agents = List.of();
        private String token;
        private String verdictColumn = DEFAULT_VERDICT_COLUMN;

        private Builder(String namespace) {
            Objects.requireNonNull(namespace, "namespace");
            if (!Limits.isValidNamespace(namespace)) {
                throw new IllegalArgumentException("namespace: '" + namespace + "' is not 1 to "
                        + Limits.MAX_NAMESPACE_LENGTH + " of A-Z a-z 0-9 . _ -");
            }
            this.namespace = namespace;
        }

        /**
         * The id is the value of the row's last Kafka header named {@code header}, as UTF-8 text: where the producer
         * put the message's id. The Dataset must be the Kafka source's, read with {@code includeHeaders}. A record
         * without the header fails its task, naming the header and the record.
         */
        public Builder idFromHeader(String header) {
            Objects.requireNonNull(header, "idFromHeader");
            if (header.isEmpty()) {
                throw new IllegalArgumentException("idFromHeader: the header's name is empty");
            }
            clearId();
            this.idHeader = header;
            return this;
        }

        /**
         * The id is the value of column {@code column}, as a string (e.g. a field the producer sets once per
         * message, parsed out of the value). Never the Kafka record key: it names a user or a device, and every
         * second event of a key would be dropped.
         */
        public Builder id(String column) {
            Objects.requireNonNull(column, "id");
            clearId();
            this.idColumn = column;
            return this;
        }

        /** The id is {@code expression} as a string, e.g. {@code get_json_object(col("value").cast("string"), "$.txid")}. */
        public Builder id(Column expression) {
            Objects.requireNonNull(expression, "id");
            clearId();
            this.idExpression = expression;
            return this;
        }

        private void clearId() {
            idHeader = null;
            idColumn = null;
            idExpression = null;
        }

        /**
         * The owner is {@code topic:partition:offset} of the Kafka source's {@code topic}, {@code partition} and
         * {@code offset} columns (the default).
         */
        public Builder ownerFromKafka() {
            return ownerFromKafka("topic", "partition", "offset");
        }

        /** The owner is {@code topic:partition:offset} of the three columns named so. */
        public Builder ownerFromKafka(String topic, String partition, String offset) {
            return ownerColumns(RowReader.OwnerKind.KAFKA, topic, partition, offset);
        }

        /**
         * The owner is {@code stream:shardId:sequenceNumber} of a Kinesis source's columns, named as that source names
         * them (e.g. {@code "stream", "shardId", "sequenceNumber"}): {@link dev.dedup.client.Owners#kinesis}.
         */
        public Builder ownerFromKinesis(String stream, String shardId, String sequenceNumber) {
            return ownerColumns(RowReader.OwnerKind.KINESIS, stream, shardId, sequenceNumber);
        }

        private Builder ownerColumns(RowReader.OwnerKind kind, String... columns) {
            for (String c : columns) {
                Objects.requireNonNull(c, "owner column");
            }
            this.ownerKind = kind;
            this.ownerColumns = columns.clone();
            this.ownerExpression = null;
            return this;
        }

        /**
         * The owner is {@code expression} as a string, for a source the library has no form for. It must be the
         * same each time the same copy is read (a task run again) and differ between copies, and every worker of the
         * namespace must write it alike ({@link dev.dedup.client.Owners} writes the forms of Kafka, Kinesis, SQS and
         * RabbitMQ).
         */
        public Builder owner(Column expression) {
            this.ownerExpression = Objects.requireNonNull(expression, "owner");
            this.ownerKind = RowReader.OwnerKind.COLUMN;
            this.ownerColumns = new String[0];
            return this;
        }

        /**
         * The message's event time: a timestamp column (an instant), or whole epoch seconds. The agent counts each
         * claim's window from it on the namespace's event clock (the newest event time claimed there), not from the
         * claim, so a job that falls behind its stream keeps its claims. A date or a timestamp without time zone is
         * refused: its second would depend on the session's time zone, and two jobs in two zones would stamp one
         * message with two seconds.
         *
         * <p>By default, the source's own: the Kafka source's {@code timestamp} column with the Kafka owner, the
         * Kinesis source's {@code approximateArrivalTimestamp} with {@link #ownerFromKinesis}, when the Dataset has
         * it as a timestamp; else none.
         */
        public Builder eventTime(Column expression) {
            this.eventTime = Objects.requireNonNull(expression, "eventTime");
            this.sourceEventTime = false;
            return this;
        }

        /**
         * Claims carry no event time, not even the source's: each window counts from its claim. For a namespace whose
         * other workers send none (the Redis tier keeps claims with and without event times apart).
         */
        public Builder noEventTime() {
            this.eventTime = null;
            this.sourceEventTime = false;
            return this;
        }

        /**
         * Rows per claim request, 1 to {@value #MAX_CHUNK}; default 1,000. The agent refuses a request over its
         * {@code --max-batch} (10,000 unless set) with a 413, which fails the task.
         */
        public Builder chunk(int rows) {
            if (rows < 1 || rows > MAX_CHUNK) {
                throw new IllegalArgumentException("chunk: " + rows + " is not 1 to " + MAX_CHUNK);
            }
            this.chunk = rows;
            return this;
        }

        /** How long a task sends a chunk the agent does not answer again before failing; default 60 s. */
        public Builder patience(Duration patience) {
            Objects.requireNonNull(patience, "patience");
            if (patience.isNegative()) {
                throw new IllegalArgumentException("patience: " + patience + " is negative");
            }
            this.patience = patience;
            return this;
        }

        /**
         * Claims at this agent instead of the executor's own: an agent run as a service, reached by its address.
         * A task of partition {@code p} takes the agent at {@code p % agents.size()} when several are given.
         */
        public Builder agents(List<URI> agents) {
            Objects.requireNonNull(agents, "agents");
            List<String> uris = new ArrayList<>();
            for (URI a : agents) {
                Objects.requireNonNull(a, "agents");
                if (!"http".equalsIgnoreCase(a.getScheme()) && !"https".equalsIgnoreCase(a.getScheme())
                        || a.getHost() == null) {
                    throw new IllegalArgumentException("agents: '" + a + "' is not an http(s) URI with a host");
                }
                uris.add(a.toString());
            }
            this.agents = List.copyOf(uris);
            return this;
        }

        /** The token of the agents named by {@link #agents}; the executor's own agent takes {@code DEDUP_TOKEN}. */
        public Builder token(String token) {
            this.token = token == null || token.strip().isEmpty() ? null : token.strip();
            return this;
        }

        /** The name of the column {@link #withVerdicts} adds; default {@value #DEFAULT_VERDICT_COLUMN}. */
        public Builder verdictColumn(String name) {
            Objects.requireNonNull(name, "verdictColumn");
            if (name.isEmpty()) {
                throw new IllegalArgumentException("verdictColumn: empty");
            }
            this.verdictColumn = name;
            return this;
        }

        /** @throws IllegalStateException when no id was set: {@link #idFromHeader} or {@link #id} */
        public DedupTransform build() {
            if (idHeader == null && idColumn == null && idExpression == null) {
                throw new IllegalStateException("no id: say where each row's message id is, with idFromHeader(...)"
                        + " (a Kafka header) or id(...) (a column); never the record key");
            }
            return new DedupTransform(this);
        }
    }
}
