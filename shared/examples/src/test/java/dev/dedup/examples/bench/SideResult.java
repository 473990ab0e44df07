package dev.dedup.examples.bench;

import java.util.List;
import java.util.Locale;

/**
 * What one side of a run measured. Raw figures; {@link #row()} derives the table's.
 *
 * @param firstBatchMs     the first micro-batch, which plans the query and loads its classes; the percentiles are
 *                         of the batches after it
 * @param stateRows        Spark: the last batch's {@code numRowsTotal}; the embedded store: occupied slots (live or
 *                         expired claims); Redis: claims in the fingerprint tables
 * @param stateMemoryBytes Spark: the last batch's {@code memoryUsedBytes} (RocksDB's memory); the embedded store:
 *                         its mapped slot file, fixed when created; Redis: the shards' {@code used_memory} over the
 *                         run
 * @param stateDiskBytes   Spark: RocksDB's SST files ({@code rocksdbSstFileSize}); the embedded store: the slot
 *                         file; Redis: 0 (no persistence)
 * @param bytesPerSlot     the embedded store: its file over its slots; 0 for the others
 * @param checkpointBytesWritten every file Spark wrote to the checkpoint during the stream, each counted once at its
 *                         largest size (sampled every second)
 * @param checkpointDiskBytes the checkpoint directory's size at the end
 * @param jobCpuMillis     the Spark job's JVM (driver and executor in local mode) from the first record to caught up
 * @param agentCpuMillis   the agent's over the same span, and the Redis shards' with it on Redis
 * @param proxyCpuMillis   the delaying proxy's in front of the shards ({@code --shard-round-trip}) over the same
 *                         span; -1 without one
 * @param drainMillis      from the last record written until a batch had read to the topic's end
 * @param lagAtEnd         records written and not yet read when the last one was written
 * @param recoveryMillis   from {@code kill -9} of the job until a batch after its restart read all the topic held
 *                         when planned within the trigger interval (caught up); -1 when not measured
 */
public record SideResult(
        String side,
        int records,
        int unique,
        int lost,
        int countedTwice,
        boolean aggregatesExact,
        String lostKinds,
        String twiceKinds,
        int batches,
        long firstBatchMs,
        long batchP50Ms,
        long batchP99Ms,
        long batchMaxMs,
        long stateRows,
        long stateMemoryBytes,
        long stateDiskBytes,
        double bytesPerSlot,
        long checkpointBytesWritten,
        long checkpointDiskBytes,
        long driverHeapMaxBytes,
        long driverRssMaxBytes,
        long agentRssMaxBytes,
        long jobCpuMillis,
        long agentCpuMillis,
        long proxyCpuMillis,
        long drainMillis,
        long lagAtEnd,
        boolean caughtUp,
        long recoveryMillis) {

    public boolean exact() {
        return lost == 0 && countedTwice == 0 && aggregatesExact;
    }

    static final List<String> HEADER = List.of(
            "side",
            "records (unique)",
            "lost",
            "twice",
            "batches",
            "batch p50 ms",
            "batch p99 ms",
            "state rows",
            "state memory MiB",
            "state disk MiB",
            "B/id held (memory)",
            "checkpoint KiB/batch",
            "driver heap MiB",
            "driver RSS MiB",
            "job CPU µs/id",
            "agent CPU µs/id",
            "agent RSS MiB",
            "drain s",
            "recovery s");

    /** The table's row: rates per unique id, sizes in MiB. */
    List<String> row() {
        double perId = bytesPerSlot > 0 ? bytesPerSlot : stateRows == 0 ? 0 : (double) stateMemoryBytes / stateRows;
        return List.of(
                side,
                String.format(Locale.ROOT, "%,d (%,d)", records, unique),
                String.valueOf(lost),
                String.valueOf(countedTwice),
                String.valueOf(batches),
                String.valueOf(batchP50Ms),
                String.valueOf(batchP99Ms),
                String.format(Locale.ROOT, "%,d", stateRows),
                mib(stateMemoryBytes),
                mib(stateDiskBytes),
                String.format(Locale.ROOT, "%.1f", perId),
                String.format(Locale.ROOT, "%.1f", batches == 0 ? 0 : checkpointBytesWritten / 1024.0 / batches),
                mib(driverHeapMaxBytes),
                mib(driverRssMaxBytes),
                String.format(Locale.ROOT, "%.1f", jobCpuMillis * 1000.0 / unique),
                agentCpuMillis < 0 ? "—" : String.format(Locale.ROOT, "%.1f", agentCpuMillis * 1000.0 / unique),
                agentRssMaxBytes == 0 ? "—" : mib(agentRssMaxBytes),
                caughtUp ? String.format(Locale.ROOT, "%.1f", drainMillis / 1000.0) : "behind",
                recoveryMillis < 0 ? "—" : String.format(Locale.ROOT, "%.1f", recoveryMillis / 1000.0));
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
    }
}
