package dev.dedup.agent.store.embedded;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.store.FailureKind;
import dev.dedup.agent.store.StoreUnavailableException;
import dev.dedup.codec.RangeRequest;
import dev.dedup.wire.SequenceRange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RangeTableTest {

    private static final long NOW = 1_767_225_600_000L;
    private static final long DAY = 86_400_000L;

    @TempDir
    Path dir;

    private static RangeRequest request(String stream, SequenceRange... ranges) {
        return new RangeRequest("ns", stream, List.of(ranges));
    }

    private static List<SequenceRange> done(RangeTable table, String stream, long now) {
        return table.check(request(stream, SequenceRange.of(0, Long.MAX_VALUE)), now)
                .get(0);
    }

    @Test
    void commitsSurviveARestart_mergedAndWithTheirEnds() {
        try (RangeTable table = new RangeTable(dir, NOW)) {
            table.commit(request("s", SequenceRange.of(0, 99)), NOW + DAY, NOW);
            table.commit(request("s", SequenceRange.of(100, 199), SequenceRange.of(300, 399)), NOW + DAY, NOW);
            table.commit(request("short", SequenceRange.of(0, 9)), NOW + 1000, NOW);
        }
        try (RangeTable table = new RangeTable(dir, NOW + 2000)) {
            assertEquals(List.of(SequenceRange.of(0, 199), SequenceRange.of(300, 399)), done(table, "s", NOW + 2000));
            assertEquals(List.of(), done(table, "short", NOW + 2000), "ended before the restart");
            assertEquals(2, table.intervals());
            assertEquals(1, table.streams());
        }
    }

    @Test
    void aRecordCutShortByACrashEndsTheReplay_andTheRestIsKept() throws Exception {
        try (RangeTable table = new RangeTable(dir, NOW)) {
            table.commit(request("s", SequenceRange.of(0, 99)), NOW + DAY, NOW);
            table.commit(request("s", SequenceRange.of(500, 599)), NOW + DAY, NOW);
        }
        Path log = dir.resolve("ranges.log");
        byte[] bytes = Files.readAllBytes(log);
        Files.write(log, java.util.Arrays.copyOf(bytes, bytes.length - 5)); // the last record, torn
        try (RangeTable table = new RangeTable(dir, NOW)) {
            assertEquals(List.of(SequenceRange.of(0, 99)), done(table, "s", NOW));
            table.commit(request("s", SequenceRange.of(100, 149)), NOW + DAY, NOW);
        }
        try (RangeTable table = new RangeTable(dir, NOW)) {
            assertEquals(List.of(SequenceRange.of(0, 149)), done(table, "s", NOW), "the log was rewritten whole");
        }
    }

    @Test
    void aFileThatIsNotARangeLogIsRefused() throws Exception {
        Files.writeString(dir.resolve("ranges.log"), "not a log at all");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new RangeTable(dir, NOW));
        assertTrue(e.getMessage().contains("not a range log"), e.getMessage());
    }

    @Test
    void theLogIsRewrittenWithTheLiveIntervals_soItStaysSmallForAStreamCommittedInOrder() throws Exception {
        try (RangeTable table = new RangeTable(dir, NOW)) {
            for (int b = 0; b < 50_000; b++) {
                table.commit(request("s", SequenceRange.of(b * 10L, b * 10L + 9)), NOW + DAY, NOW);
            }
            assertEquals(1, table.intervals());
        }
        assertTrue(
                Files.size(dir.resolve("ranges.log")) < 1_000_000,
                "rewritten: " + Files.size(dir.resolve("ranges.log")));
    }

    @Test
    void pastTheLimitOfLiveIntervals_aCommitIsRefusedWhole() {
        try (RangeTable table = new RangeTable(dir, NOW)) {
            List<SequenceRange> apart = new ArrayList<>();
            for (int i = 0; i < RangeTable.MAX_INTERVALS; i++) {
                apart.add(SequenceRange.of(i * 10L, i * 10L + 1));
                if (apart.size() == 1000) {
                    table.commit(new RangeRequest("ns", "s", apart), NOW + DAY, NOW);
                    apart.clear();
                }
            }
            StoreUnavailableException full = assertThrows(
                    StoreUnavailableException.class,
                    () -> table.commit(
                            request("s", SequenceRange.of(99_999_999_000L, 99_999_999_001L)), NOW + DAY, NOW));
            assertEquals(FailureKind.FULL, full.kind());
            assertEquals(RangeTable.MAX_INTERVALS, table.intervals());
            table.commit(request("s", SequenceRange.of(0, 11)), NOW + DAY, NOW); // merging is still fine
            assertEquals(RangeTable.MAX_INTERVALS - 1, table.intervals());
            assertEquals(List.of(), done(table, "s", NOW + DAY + 1), "everything ends with its window");
            List<SequenceRange> later = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                later.add(SequenceRange.of(i * 10L, i * 10L + 1));
            }
            table.commit(new RangeRequest("ns", "t", later), NOW + 2 * DAY, NOW + DAY + 1);
            assertEquals(1000, table.intervals(), "ended intervals made room");
        }
    }
}
