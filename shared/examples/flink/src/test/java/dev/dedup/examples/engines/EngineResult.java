package dev.dedup.examples.engines;

import java.util.List;
import java.util.Locale;

/**
 * What one side of an engine benchmark run measured. Raw figures; {@link #row()} derives the table's.
 *
 * @param lost             messages the output's {@code read_committed} reader did not find
 * @param countedTwice     messages it found more than once
 * @param ambiguous        messages whose value another message shares, so that a value-only output (Flink's) cannot
 *                         say which of them it holds; 0 below 1,000 ids a second (one message a millisecond)
 * @param wrongKinds       the messages lost or counted twice by the kind of copies they came with
 * @param drainMillis      from the last record written until the job's group had committed the input's end
 * @param jobCpuMillis     the job's JVMs (every start) from the first record written to caught up
 * @param agentCpuMillis   the agent's over the same span; -1 without one
 * @param heldIds          the messages first written within the window before the last original was written: what
 *                         a store must hold then
 * @param stateBytes       when the last original was written: Flink on the heap, its newest checkpoint (the state
 *                         serialized whole); on RocksDB, its local database; Kafka Streams, its state directory; ours,
 *                         the agent's store file; -1 when it could not be read
 * @param checkpoints      Flink's completed checkpoints; 0 for Kafka Streams
 * @param checkpointBytesWritten every file Flink wrote to its checkpoints, each counted once at its largest size
 * @param changelogBytes   Kafka Streams: the broker's files of the application's changelog topics at the end
 * @param repartitionBytes Kafka Streams: those of its repartition topics
 * @param recoveryMillis   from {@code kill -9} of the job until its group's committed lag was back to the largest it
 *                         had been before the kill; -1 when not measured
 * @param lagBeforeKill    that largest committed lag (records) before the kill
 */
public record EngineResult(
        String side,
        int records,
        int unique,
        int lost,
        int countedTwice,
        int ambiguous,
        String wrongKinds,
        boolean caughtUp,
        long drainMillis,
        double idsPerSecond,
        long jobCpuMillis,
        long agentCpuMillis,
        long jobRssMaxBytes,
        long agentRssMaxBytes,
        long heldIds,
        long stateBytes,
        long checkpoints,
        long checkpointBytesWritten,
        long changelogBytes,
        long repartitionBytes,
        long recoveryMillis,
        long lagBeforeKill) {

    public boolean exact() {
        return lost == 0 && countedTwice == 0;
    }

    static final List<String> HEADER = List.of(
            "side",
            "records (unique)",
            "lost",
            "twice",
            "drain s",
            "ids/s",
            "job CPU µs/id",
            "agent CPU µs/id",
            "state MiB",
            "state B/id held",
            "checkpoints",
            "checkpoint KiB each",
            "changelog B/id",
            "repartition B/id",
            "job RSS MiB",
            "agent RSS MiB",
            "recovery s",
            "lost, twice by kind");

    /** The table's row: CPU and topic bytes per unique id, state per id held, sizes in MiB. */
    List<String> row() {
        return List.of(
                side,
                String.format(Locale.ROOT, "%,d (%,d)", records, unique),
                String.valueOf(lost),
                String.valueOf(countedTwice),
                caughtUp ? String.format(Locale.ROOT, "%.1f", drainMillis / 1000.0) : "behind",
                String.format(Locale.ROOT, "%,.0f", idsPerSecond),
                String.format(Locale.ROOT, "%.1f", jobCpuMillis * 1000.0 / unique),
                agentCpuMillis < 0 ? "—" : String.format(Locale.ROOT, "%.1f", agentCpuMillis * 1000.0 / unique),
                mib(stateBytes),
                String.format(Locale.ROOT, "%.1f", heldIds == 0 ? 0 : (double) stateBytes / heldIds),
                checkpoints == 0 ? "—" : String.valueOf(checkpoints),
                checkpoints == 0
                        ? "—"
                        : String.format(Locale.ROOT, "%.1f", checkpointBytesWritten / 1024.0 / checkpoints),
                side.startsWith("streams") ? String.format(Locale.ROOT, "%.1f", (double) changelogBytes / unique) : "—",
                side.startsWith("streams")
                        ? String.format(Locale.ROOT, "%.1f", (double) repartitionBytes / unique)
                        : "—",
                mib(jobRssMaxBytes),
                agentRssMaxBytes == 0 ? "—" : mib(agentRssMaxBytes),
                recoveryMillis < 0 ? "—" : String.format(Locale.ROOT, "%.1f", recoveryMillis / 1000.0),
                wrongKinds.equals("{}") ? "—" : wrongKinds);
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }
}
