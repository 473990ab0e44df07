package dev.dedup.examples.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.dedup.examples.spark.SparkDedupJob;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.UnaryOperator;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerStageSubmitted;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.SourceProgress;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryProgress;

/**
 * What a Spark pipeline test saw, to explain a loss when one happens: per micro-batch the Kafka offset ranges the
 * query planned and its input rows (the query's progress), every task attempt (its micro-batch, partition, outcome
 * and the records it read, from a {@link SparkListener}), and the rows each attempt kept after its claims (Kafka
 * partition, offsets, count). Spark runs in local mode, in the test's JVM: what the tasks record is seen here.
 */
public final class SparkDiagnostics implements AutoCloseable {

    /** The kept rows one task attempt handed on after its claims. */
    public record Kept(
            String batch, int stage, int partition, int attempt, int kafkaPartition, int rows, long first, long last) {}

    /** One task attempt's end, as the scheduler reported it. */
    public record TaskEnd(String batch, int stage, int partition, int attempt, String outcome, long recordsRead) {}

    private static final Map<String, ConcurrentLinkedQueue<Kept>> KEPT = new ConcurrentHashMap<>();

    private final SparkSession spark;
    private final String key;
    private final Map<Integer, String> stageBatch = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<TaskEnd> tasks = new ConcurrentLinkedQueue<>();
    private final SparkListener listener = new SparkListener() {
        // A stage's submission rather than its job's start: it carries the job's properties without a Scala
        // collection, whose type differs between Scala 2.12 and 2.13 (the Spark 3.5 run uses both).
        @Override
        public void onStageSubmitted(SparkListenerStageSubmitted submitted) {
            String batch = submitted.properties() == null
                    ? null
                    : submitted.properties().getProperty("streaming.sql.batchId");
            stageBatch.put(submitted.stageInfo().stageId(), batch == null ? "?" : batch);
        }

        @Override
        public void onTaskEnd(SparkListenerTaskEnd end) {
            long read = end.taskMetrics() == null
                    ? -1
                    : end.taskMetrics().inputMetrics().recordsRead();
            String outcome = end.taskInfo().successful() ? "ok" : String.valueOf(end.reason());
            tasks.add(new TaskEnd(
                    stageBatch.getOrDefault(end.stageId(), "?"),
                    end.stageId(),
                    end.taskInfo().index(),
                    end.taskInfo().attemptNumber(),
                    outcome.length() > 160 ? outcome.substring(0, 160) + "..." : outcome,
                    read));
        }
    };

    public SparkDiagnostics(SparkSession spark, String key) {
        this.spark = spark;
        this.key = key;
        KEPT.put(key, new ConcurrentLinkedQueue<>());
        spark.sparkContext().addSparkListener(listener);
    }

    /**
     * {@code then} after recording, per task attempt, the kept rows ({@link SparkDedupJob#EVENTS}) it sees; the record
     * is made when the attempt has drained its input (before {@code then} may fail it).
     */
    public UnaryOperator<Dataset<Row>> observe(UnaryOperator<Dataset<Row>> then) {
        MapPartitionsFunction<Row, Row> record = new Recorder(key);
        return kept -> then.apply(kept.mapPartitions(record, Encoders.row(SparkDedupJob.EVENTS)));
    }

    private record Recorder(String key) implements MapPartitionsFunction<Row, Row> {
        @Override
        public Iterator<Row> call(Iterator<Row> rows) {
            return new Recording(key, rows);
        }
    }

    private static final class Recording implements Iterator<Row> {
        private final String key;
        private final Iterator<Row> rows;
        private int count;
        private int kafkaPartition = -1;
        private long first = Long.MAX_VALUE;
        private long last = Long.MIN_VALUE;
        private boolean recorded;

        Recording(String key, Iterator<Row> rows) {
            this.key = key;
            this.rows = rows;
        }

        @Override
        public boolean hasNext() {
            boolean more = rows.hasNext();
            if (!more && !recorded) {
                recorded = true;
                TaskContext t = TaskContext.get();
                ConcurrentLinkedQueue<Kept> q = KEPT.get(key);
                if (q != null) {
                    q.add(new Kept(
                            t.getLocalProperty("streaming.sql.batchId"),
                            t.stageId(),
                            t.partitionId(),
                            t.attemptNumber(),
                            kafkaPartition,
                            count,
                            first,
                            last));
                }
            }
            return more;
        }

        @Override
        public Row next() {
            Row r = rows.next();
            count++;
            // by position, as the job's schema orders them
            kafkaPartition = r.getInt(SparkDedupJob.EVENTS.fieldIndex("partition"));
            long offset = r.getLong(SparkDedupJob.EVENTS.fieldIndex("offset"));
            first = Math.min(first, offset);
            last = Math.max(last, offset);
            return r;
        }
    }

    /** Per micro-batch: Kafka partition → [start, end) as the query planned it, and its numInputRows. */
    public record Batch(long id, long inputRows, Map<Integer, long[]> ranges) {
        public long planned() {
            return ranges.values().stream().mapToLong(r -> r[1] - r[0]).sum();
        }
    }

    public static List<Batch> batches(StreamingQuery q) {
        ObjectMapper json = new ObjectMapper();
        List<Batch> out = new ArrayList<>();
        for (StreamingQueryProgress p : q.recentProgress()) {
            if (p.sources().length == 0) {
                continue;
            }
            SourceProgress s = p.sources()[0];
            Map<Integer, long[]> ranges = new TreeMap<>();
            try {
                JsonNode start = s.startOffset() == null ? null : json.readTree(s.startOffset());
                JsonNode end = s.endOffset() == null ? null : json.readTree(s.endOffset());
                if (end == null || !end.isObject() || !end.fields().hasNext()) {
                    continue;
                }
                JsonNode endTopic = end.fields().next().getValue();
                JsonNode startTopic = start == null || !start.isObject()
                        ? null
                        : start.fields().next().getValue();
                endTopic.fields().forEachRemaining(e -> {
                    int partition = Integer.parseInt(e.getKey());
                    long from = startTopic == null || startTopic.get(e.getKey()) == null
                            ? 0
                            : startTopic.get(e.getKey()).asLong();
                    ranges.put(partition, new long[] {from, e.getValue().asLong()});
                });
            } catch (Exception e) {
                throw new IllegalStateException("progress offsets: " + s.startOffset() + " .. " + s.endOffset(), e);
            }
            out.add(new Batch(p.batchId(), p.numInputRows(), ranges));
        }
        return out;
    }

    /** The Kafka offsets the query's last batch ended at (partition → next offset), empty before any batch. */
    public static Map<Integer, Long> consumedUpTo(List<Batch> batches) {
        Map<Integer, Long> out = new TreeMap<>();
        for (Batch b : batches) {
            b.ranges().forEach((p, r) -> out.merge(p, r[1], Math::max));
        }
        return out;
    }

    public List<Kept> kept() {
        return List.copyOf(KEPT.getOrDefault(key, new ConcurrentLinkedQueue<>()));
    }

    public List<TaskEnd> tasks() {
        return List.copyOf(tasks);
    }

    /** Everything recorded, one line per batch, task attempt and kept record, for a failure message or the log. */
    public String describe(List<Batch> batches) {
        StringBuilder b = new StringBuilder();
        for (Batch batch : batches) {
            b.append("batch ")
                    .append(batch.id())
                    .append(": planned ")
                    .append(batch.planned())
                    .append(" records, numInputRows ")
                    .append(batch.inputRows())
                    .append(", ranges");
            batch.ranges()
                    .forEach((p, r) -> b.append(' ')
                            .append(p)
                            .append(":[")
                            .append(r[0])
                            .append(',')
                            .append(r[1])
                            .append(')'));
            b.append('\n');
        }
        for (TaskEnd t : tasks()) {
            b.append("task  ").append(t).append('\n');
        }
        for (Kept k : kept()) {
            b.append("kept  ").append(k).append('\n');
        }
        return b.toString();
    }

    @Override
    public void close() {
        spark.sparkContext().removeSparkListener(listener);
        KEPT.remove(key);
    }
}
