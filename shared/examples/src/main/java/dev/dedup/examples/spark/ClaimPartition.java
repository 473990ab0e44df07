package dev.dedup.examples.spark;

import dev.dedup.client.Claims;
import dev.dedup.client.Owners;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.util.LongAccumulator;

/**
 * Claims a partition of Kafka rows ({@code value, topic, partition, offset, timestamp, headers}: the source read with
 * {@code includeHeaders}) at the agent, one request per chunk of {@code chunk} rows, and returns the rows answered
 * {@code NEW} or {@code RETRY} as {@link #KEPT} rows. The id is the value of the row's last header named {@code
 * idHeader}, where the producer put the message's id (never the record key, a partitioning key shared by every
 * message of a user or a device); the owner is {@link Owners#kafka} of the row. The agent is the executor's own, as
 * its pod template names it ({@code DEDUP_URL}, and {@code DEDUP_TOKEN} when the agent has one; {@link
 * ExecutorAgent}), its client created once per executor JVM; a claim the agent cannot answer is sent again for up to
 * {@code patience} (an agent restart, a Redis shard down), then the task fails and Spark retries it, which claims the
 * same owners and gets {@code RETRY}. A rejected claim (4xx: a 401 for a
 * missing token) fails the task at once.
 */
public final class ClaimPartition implements MapPartitionsFunction<Row, Row> {

    private static final long serialVersionUID = 1L;

    /** The kept rows: the message and where this copy sits. */
    public static final StructType KEPT = new StructType()
            .add("id", DataTypes.StringType, false)
            .add("app", DataTypes.StringType, false)
            .add("event_ms", DataTypes.LongType, false)
            .add("amount", DataTypes.LongType, false)
            .add("partition", DataTypes.IntegerType, false)
            .add("offset", DataTypes.LongType, false);

    private final List<String> agents;
    private final String namespace;
    private final String idHeader;
    private final int chunk;
    private final Duration patience;
    private final LongAccumulator fresh;
    private final LongAccumulator retried;
    private final LongAccumulator duplicates;

    /** Claims at the executor's own agent, the one its environment names ({@link ExecutorAgent#FROM_ENVIRONMENT}). */
    public ClaimPartition(String namespace, String idHeader, int chunk, Duration patience, Verdicts verdicts) {
        this(List.of(), namespace, idHeader, chunk, patience, verdicts);
    }

    /**
     * @param agents     empty: the executor's own agent, as its environment names it; else agent URIs, of which a
     *                   task takes the one at its partition index (tests play several nodes so)
     * @param idHeader   the header the producer puts the message id in, e.g. {@code message-id}
     * @param verdicts   counters of the verdicts (Spark adds those of successful task attempts only)
     */
    public ClaimPartition(
            List<String> agents, String namespace, String idHeader, int chunk, Duration patience, Verdicts verdicts) {
        this.agents = List.copyOf(agents);
        this.namespace = namespace;
        this.idHeader = idHeader;
        this.chunk = chunk;
        this.patience = patience;
        this.fresh = verdicts.fresh();
        this.retried = verdicts.retried();
        this.duplicates = verdicts.duplicates();
    }

    /** Verdict counters, registered on the driver. */
    public record Verdicts(LongAccumulator fresh, LongAccumulator retried, LongAccumulator duplicates)
            implements java.io.Serializable {
        public static Verdicts register(org.apache.spark.SparkContext sc) {
            return new Verdicts(
                    sc.longAccumulator("dedup.new"),
                    sc.longAccumulator("dedup.retry"),
                    sc.longAccumulator("dedup.duplicate"));
        }
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
        TaskContext task = TaskContext.get();
        String agent = agents.isEmpty()
                ? ExecutorAgent.FROM_ENVIRONMENT
                : agents.get((task == null ? 0 : task.partitionId()) % agents.size());
        Claims claims = new Claims(ExecutorAgent.client(agent), namespace, patience);
        return new Iterator<>() {
            private final ArrayDeque<Row> ready = new ArrayDeque<>();

            @Override
            public boolean hasNext() {
                while (ready.isEmpty() && rows.hasNext()) {
                    claimNextChunk();
                }
                return !ready.isEmpty();
            }

            @Override
            public Row next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return ready.poll();
            }

            private void claimNextChunk() {
                List<Row> kept = new ArrayList<>(chunk);
                List<Item> items = new ArrayList<>(chunk);
                while (rows.hasNext() && kept.size() < chunk) {
                    Row r = rows.next();
                    String[] v = new String(r.<byte[]>getAs("value"), StandardCharsets.UTF_8).split(",", 3);
                    int partition = r.getAs("partition");
                    long offset = r.getAs("offset");
                    String owner = Owners.kafka(r.getAs("topic"), partition, offset);
                    String id = header(r, idHeader, owner);
                    long second =
                            Math.max(1, r.<java.sql.Timestamp>getAs("timestamp").getTime() / 1000);
                    items.add(new Item(id, owner, second));
                    kept.add(
                            RowFactory.create(id, v[0], Long.parseLong(v[1]), Long.parseLong(v[2]), partition, offset));
                }
                List<Verdict> verdicts;
                try {
                    verdicts = claims.claim(items);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(
                            "agent " + ExecutorAgent.client(agent).base() + " did not answer; the task fails", e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
                for (int i = 0; i < verdicts.size(); i++) {
                    switch (verdicts.get(i)) {
                        case NEW -> {
                            fresh.add(1);
                            ready.add(kept.get(i));
                        }
                        case RETRY -> {
                            retried.add(1);
                            ready.add(kept.get(i));
                        }
                        case DUPLICATE -> duplicates.add(1);
                    }
                }
            }
        };
    }

    /**
     * The value of the row's last header named {@code name}, as UTF-8 text.
     *
     * @throws IllegalArgumentException when there is none, or an empty one (the task fails: such a record cannot
     *     be deduplicated, and neither skipping nor guessing is right)
     */
    static String header(Row kafkaRow, String name, String owner) {
        List<Row> headers = kafkaRow.isNullAt(kafkaRow.fieldIndex("headers"))
                ? List.of()
                : kafkaRow.getList(kafkaRow.fieldIndex("headers"));
        for (int i = headers.size() - 1; i >= 0; i--) {
            Row h = headers.get(i);
            if (name.equals(h.getString(0))) {
                byte[] value = h.isNullAt(1) ? null : h.getAs(1);
                if (value == null || value.length == 0) {
                    break;
                }
                return new String(value, StandardCharsets.UTF_8);
            }
        }
        throw new IllegalArgumentException("the record at " + owner + " has no (or an empty) header " + name
                + ": its producer must set the message's id there; read the topic with includeHeaders");
    }
}
