package dev.dedup.examples.testing;

import dev.dedup.examples.sink.AggregateSink;
import dev.dedup.examples.spark.SparkDedupJob;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.streaming.StreamingQuery;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.streaming.Trigger;

/**
 * {@link SparkDedupJob} as a job that runs as long as its stream does, in a JVM of its own so that a test can {@code
 * kill -9} it: local mode ({@link SparkLocal}), a micro-batch every 500 ms over what arrived, the sink PostgreSQL
 * ({@link AggregateSink} with the audit of {@link Sink}), claims at the agent {@code DEDUP_URL} names, as an
 * executor's are. Started again on the same checkpoint, it goes on from there.
 *
 * <p>Arguments: {@code bootstrap topic checkpoint jdbcUrl namespace}. Prints {@code STARTED} once the query runs,
 * {@code CLAIMED kept=K} when a task has claimed its records and kept {@code K > 0} of them (before the batch's
 * write), and after each micro-batch {@code BATCH id=N rows=R new=F retry=T duplicate=D end=P:O,...}: the records it
 * read, the verdicts of this JVM's successful task attempts so far, and the offset each partition is read up to. A
 * query that fails prints its exception, then {@code FAILED new=F retry=T duplicate=D}, and exits 1.
 */
public final class SparkMember {

    private static final Pattern OFFSET = Pattern.compile("\"(\\d+)\":(\\d+)");

    public static void main(String[] args) throws Exception {
        SparkSession spark = SparkLocal.start("SparkMember");
        SparkDedupJob job = new SparkDedupJob(
                SparkLocal.jobOptions(
                        args[0],
                        args[1],
                        args[2],
                        args[1],
                        List.of() /* the executor's own agent: DEDUP_URL */,
                        args[4],
                        200),
                new AggregateSink(args[3], Sink.AUDIT));
        spark.streams().addListener(new StreamingQueryListener() {
            @Override
            public void onQueryStarted(QueryStartedEvent event) {}

            @Override
            public void onQueryProgress(QueryProgressEvent event) {
                var p = event.progress();
                if (p.sources().length == 0 || p.sources()[0].endOffset() == null) {
                    return;
                }
                TreeMap<Integer, Long> end = new TreeMap<>();
                Matcher m = OFFSET.matcher(p.sources()[0].endOffset());
                while (m.find()) {
                    end.put(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)));
                }
                StringJoiner ends = new StringJoiner(",");
                end.forEach((partition, offset) -> ends.add(partition + ":" + offset));
                System.out.println("BATCH id=" + p.batchId() + " rows=" + p.numInputRows() + " "
                        + SparkJobMain.verdicts(job) + " end=" + ends);
            }

            @Override
            public void onQueryTerminated(QueryTerminatedEvent event) {}
        });
        StreamingQuery q = job.start(spark, SparkMember::printClaimed, Trigger.ProcessingTime(500));
        System.out.println("STARTED");
        try {
            q.awaitTermination();
        } catch (Exception e) {
            e.printStackTrace();
            System.out.println("FAILED " + SparkJobMain.verdicts(job));
            System.exit(1);
        }
    }

    /** Passes a task's kept records on, saying how many there are once the task has claimed them. */
    private static Dataset<Row> printClaimed(Dataset<Row> kept) {
        MapPartitionsFunction<Row, Row> print = rows -> {
            List<Row> all = new ArrayList<>();
            rows.forEachRemaining(all::add); // every record of the task is claimed by now
            if (!all.isEmpty()) {
                System.out.println("CLAIMED kept=" + all.size());
            }
            return all.iterator();
        };
        return kept.mapPartitions(print, Encoders.row(SparkDedupJob.EVENTS));
    }

    private SparkMember() {}
}
