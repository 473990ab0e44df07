package dev.dedup.loadtest.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * CPU time used so far by processes of this machine (Linux {@code /proc/<pid>/stat}: user plus system time of
 * every thread), so that a scenario can say what each id cost the Redis shards and the agent beside it.
 */
public final class ProcessCpu {

    /** Linux's {@code USER_HZ}: the unit of {@code utime} and {@code stime}, 100 on every usual kernel. */
    static final double TICKS_PER_SECOND = 100;

    private final List<Long> pids;

    public ProcessCpu(List<Long> pids) {
        this.pids = List.copyOf(pids);
    }

    public boolean isEmpty() {
        return pids.isEmpty();
    }

    /** CPU seconds the processes have used, summed; fails naming a process that is gone. */
    public double seconds() {
        double ticks = 0;
        for (long pid : pids) {
            ticks += ticks(pid);
        }
        return ticks / TICKS_PER_SECOND;
    }

    static long ticks(long pid) {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the CPU time of process " + pid + ": " + e.getMessage(), e);
        }
        return ticksOf(stat);
    }

    /** utime + stime of one {@code /proc/<pid>/stat} line: fields 14 and 15, after the command's parenthesis. */
    static long ticksOf(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
        // f[0] is field 3 (state): utime is field 14, stime field 15.
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
