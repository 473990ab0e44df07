package dev.dedup.examples.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What Linux's {@code /proc} says of a process: its resident memory and its CPU time (all threads). */
public final class Proc {

    /** Clock ticks a second of {@code /proc/<pid>/stat}'s times: 100 on every Linux this runs on. */
    private static final long TICKS = 100;

    /** Resident memory in bytes ({@code VmRSS}), 0 once the process is gone. */
    public static long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException gone) {
            return 0;
        }
        return 0;
    }

    /** User and system CPU time in milliseconds, 0 once the process is gone. */
    public static long cpuMillis(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
            // after the name in parentheses (which may hold spaces): utime and stime are the 12th and 13th fields
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 1000 / TICKS;
        } catch (IOException | RuntimeException gone) {
            return 0;
        }
    }

    private Proc() {}
}
