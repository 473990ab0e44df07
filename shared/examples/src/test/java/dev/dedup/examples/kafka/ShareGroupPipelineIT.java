package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.ShareGroupRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The library's {@link dev.dedup.kafka.DedupShareConsumerLoop} in a share group of 3 members on one topic (Kafka 4.2,
 * KIP-932), against a real broker with share groups on, the agent jar (one node, embedded store) and PostgreSQL,
 * under faults. Each
 * test ends with the sink against the ground truth: 0 lost, 0 counted twice, and the records processed twice
 * (delivered again after their output was written) counted and explained.
 */
class ShareGroupPipelineIT {

    private static final int UNIQUE = 1_500;
    private static final int PARTITIONS = 3;
    private static final int MEMBERS = 3;

    @RegisterExtension
    static final Services services = Services.kafka("share-pipeline");

    /** Processing fails on a record's first delivery: the claims are released, the records RELEASEd, and counted. */
    @Test
    void processingFailureReleasesClaimsBeforeTheRecords() throws Exception {
        try (ShareGroupRun run = run("failures")) {
            for (int i = 0; i < MEMBERS; i++) {
                run.start(i, "fail=50");
            }
            ShareGroupRun.Outcome o = run.finish();
            assertTrue(o.counts().released() > 0, "claims released: " + o.counts());
            assertEquals(0, o.reprocessed(), "nothing whose output was written is delivered again");
        }
    }

    /**
     * A member killed ({@code kill -9}) after writing a batch's output and before acknowledging it: the records'
     * locks run out, they go to the other members, which claim the same owners and get retry: processed again,
     * absorbed by the sink's owner key. Exactly that batch is processed twice.
     */
    @Test
    void memberKilledMidBatch() throws Exception {
        try (ShareGroupRun run = run("kill9")) {
            // The victim alone at first, so that it is given a batch whatever the broker's spread over members;
            // the others join while it holds that batch, and take its records once their locks run out.
            ChildJvm victim = run.start(0, "pauseBeforeAck=1");
            victim.awaitLine(l -> l.startsWith("PAUSED"), Duration.ofSeconds(60));
            for (int i = 1; i < MEMBERS; i++) {
                run.start(i);
            }
            int batch = lastProcessed(victim);
            victim.kill9();
            ShareGroupRun.Outcome o = run.finish();
            assertEquals(batch, o.reprocessed(), "the killed member's unacknowledged batch, processed again");
            assertTrue(o.counts().retried() >= batch, "delivered again as retry: " + o.counts());
        }
    }

    /**
     * A member stalls past {@code share.record.lock.duration.ms} (4 s) while processing a batch (12 s): its records
     * go to the others (retry: processed), then the stalled member writes its output too and its acknowledgements
     * are refused. The contract allows this: retry means "process again", and the sink's owner key absorbs it.
     */
    @Test
    void memberStalledPastTheLockIsProcessedTwice() throws Exception {
        stalled(false);
    }

    /** The same stall, renewing the locks every second ({@code AcknowledgeType.RENEW}, KIP-1222): none go elsewhere. */
    @Test
    void memberStalledButRenewingItsLocksIsProcessedOnce() throws Exception {
        stalled(true);
    }

    private void stalled(boolean renew) throws Exception {
        try (ShareGroupRun run = run(renew ? "stall-renew" : "stall")) {
            long stallMs = KafkaBroker.RECORD_LOCK.toMillis() * 3;
            List<String> faults = new ArrayList<>(List.of("stallAt=2", "stallMs=" + stallMs));
            if (renew) {
                faults.add("renew");
            }
            // The slow member alone until it stalls, so that it is given a second batch whatever the broker's
            // spread over members; the others join during the stall and are offered its records once their locks
            // run out.
            ChildJvm slow = run.start(0, faults.toArray(String[]::new));
            String line = slow.awaitLine(l -> l.startsWith("STALLING"), Duration.ofSeconds(60));
            for (int i = 1; i < MEMBERS; i++) {
                run.start(i);
            }
            int stalledRecords = Integer.parseInt(line.split(" ")[1]);
            slow.awaitLine(l -> l.startsWith("STALLED done"), Duration.ofSeconds(60));
            ShareGroupRun.Outcome o = run.finish();
            Report.line(String.format(
                    "share    %-24s the stalled batch held %d records; processed twice: %d",
                    run.name, stalledRecords, o.reprocessed()));
            if (renew) {
                assertEquals(0, o.reprocessed(), "renewed locks: nothing delivered elsewhere");
            } else {
                assertEquals(stalledRecords, o.reprocessed(), "the stalled batch, delivered elsewhere and processed");
            }
        }
    }

    private static ShareGroupRun run(String name) throws Exception {
        return new ShareGroupRun(services.broker(), services.dir(), name, UNIQUE, PARTITIONS);
    }

    private static final Pattern PROCESSED = Pattern.compile("PROCESSED (\\d+)");

    private static int lastProcessed(ChildJvm member) {
        int last = -1;
        for (String line : member.output().split("\n")) {
            Matcher m = PROCESSED.matcher(line);
            if (m.find()) {
                last = Integer.parseInt(m.group(1));
            }
        }
        return last;
    }
}
