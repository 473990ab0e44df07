package dev.dedup.examples.testing;

import dev.dedup.examples.spark.SparkDedupJob;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;

/** Faults injected into a Spark job's tasks, as the {@code process} step of {@code SparkDedupJob}. */
public final class TaskFailures {

    /**
     * Tasks of even partitions fail on their first attempt after claiming every record and before the write
     * ({@code TaskContext.attemptNumber() == 0}): the retried task claims the same owners, gets retry, and processes
     * them again.
     */
    public static UnaryOperator<Dataset<Row>> failFirstAttemptOfEvenPartitions() {
        MapPartitionsFunction<Row, Row> fail = rows -> {
            List<Row> all = new ArrayList<>();
            rows.forEachRemaining(all::add); // every record of the task is claimed by now
            TaskContext task = TaskContext.get();
            if (!all.isEmpty() && task.attemptNumber() == 0 && task.partitionId() % 2 == 0) {
                throw new IllegalStateException("injected: task of partition " + task.partitionId()
                        + " fails after claiming " + all.size() + " records, before the write");
            }
            return all.iterator();
        };
        return kept -> kept.mapPartitions(fail, Encoders.row(SparkDedupJob.EVENTS));
    }

    /**
     * The tasks of micro-batch {@code batch}, once they have claimed every record, print {@link SparkJobMain#PAUSED}
     * ({@code batch=N at=task partition=P kept=K}) and wait to be killed, before the batch's write. Spark in local
     * mode runs the tasks in the driver's JVM: killing it kills the batch in flight.
     */
    public static UnaryOperator<Dataset<Row>> pauseAfterClaiming(long batch) {
        String id = String.valueOf(batch);
        MapPartitionsFunction<Row, Row> pause = rows -> {
            List<Row> all = new ArrayList<>();
            rows.forEachRemaining(all::add); // every record of the task is claimed by now
            TaskContext task = TaskContext.get();
            if (id.equals(task.getLocalProperty("streaming.sql.batchId"))) {
                System.out.println(SparkJobMain.PAUSED + " batch=" + batch + " at=task partition=" + task.partitionId()
                        + " kept=" + all.size());
                System.out.flush();
                Thread.sleep(Long.MAX_VALUE);
            }
            return all.iterator();
        };
        return kept -> kept.mapPartitions(pause, Encoders.row(SparkDedupJob.EVENTS));
    }

    private TaskFailures() {}
}
