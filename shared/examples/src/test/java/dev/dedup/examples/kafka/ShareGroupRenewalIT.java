package dev.dedup.examples.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.examples.testing.ChildJvm;
import dev.dedup.examples.testing.KafkaBroker;
import dev.dedup.examples.testing.Report;
import dev.dedup.examples.testing.Services;
import dev.dedup.examples.testing.ShareGroupRun;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Lock renewal ({@code AcknowledgeType.RENEW}) while other records wait: one member of a share group stalls in a
 * batch and renews its locks many more times than the broker's delivery limit, while the rest of the topic is
 * available. Every acquisition counts a delivery and a {@code RELEASE} does not give it back, so a renewal that took
 * other records and released them would push them to the limit, where the broker archives them unprocessed. The
 * broker here allows {@value #DELIVERY_LIMIT} deliveries (its minimum) so that two such acquisitions are enough.
 * A member stopped (SIGTERM) while it renews gives its batch back without reporting a failure of its sink.
 */
class ShareGroupRenewalIT {

    /** {@code group.share.delivery.count.limit}: a broker setting, 2 to 10 (5 by default). */
    private static final int DELIVERY_LIMIT = 2;

    private static final int UNIQUE = 600;
    private static final int PARTITIONS = 3;
    private static final long STALL_MS = KafkaBroker.RECORD_LOCK.toMillis() * 3;
    /** When a late member renews for the first time: 1.5 locks into its stall. */
    private static final long LATE_MS = KafkaBroker.RECORD_LOCK.toMillis() * 3 / 2;

    @RegisterExtension
    static final Services services = Services.kafka("share-renewal")
            .withBrokerSettings(Map.of("group.share.delivery.count.limit", String.valueOf(DELIVERY_LIMIT)));

    /**
     * Renewing every second through a 12 s stall (a 4 s lock): the batch stays with its member, and nothing else the
     * member's renewals touch is lost or written twice.
     */
    @Test
    void renewingMoreOftenThanTheDeliveryLimitLosesNothing() throws Exception {
        try (ShareGroupRun run = run("renew-often", Duration.ofSeconds(6))) {
            Stall s = stall(run, "stallAt=2", "stallMs=" + STALL_MS, "renew");
            ShareGroupRun.Outcome o = run.finish();
            report(run, s, o);
            assertTrue(s.renewals > DELIVERY_LIMIT, "renewals: " + s.renewals);
            assertEquals(0, o.reprocessed(), "renewed locks: nothing delivered again");
        }
    }

    /**
     * The first renewal comes 6 s into the stall, after the 4 s locks ran out: the broker refuses it (and the
     * acknowledgements of the batch's duplicates that went with it), and those records are available again. The
     * member, alone, gets them back as new deliveries. None may be lost or counted twice.
     */
    @Test
    void renewingAfterTheLocksRanOutLosesNothing() throws Exception {
        try (ShareGroupRun run = run("renew-late", Duration.ofSeconds(6))) {
            Stall s = stall(run, "stallAt=2", "stallMs=" + STALL_MS, "renew", "renewFrom=" + LATE_MS);
            ShareGroupRun.Outcome o = run.finish();
            report(run, s, o);
            assertTrue(s.renewals > DELIVERY_LIMIT, "renewals: " + s.renewals);
            assertTrue(s.refused > 0, "the first renewal came after the locks ran out: none refused");
        }
    }

    /**
     * Four members on two partitions, so that each partition is read by two (the group's assignor gives a partition
     * to one member while there are partitions enough): the stalled member's batch goes to another member once its
     * locks run out, and is written there. The first renewal comes 10 s into a 20 s stall while records keep
     * arriving (written over 24 s). None may be lost or counted twice; how many records are processed twice
     * (absorbed by the sink's owner key) varies from run to run.
     */
    @Test
    void renewingAfterAnotherMemberTookTheBatchLosesNothing() throws Exception {
        try (ShareGroupRun run = new ShareGroupRun(
                services.broker(), services.dir(), "renew-late-shared", UNIQUE, 2, Duration.ofSeconds(24))) {
            for (int i = 1; i < 4; i++) {
                run.start(i);
            }
            long lock = KafkaBroker.RECORD_LOCK.toMillis();
            Stall s = stall(run, "stallAt=2", "stallMs=" + lock * 5, "renew", "renewFrom=" + lock * 5 / 2);
            ShareGroupRun.Outcome o = run.finish();
            report(run, s, o);
            assertTrue(s.renewals > DELIVERY_LIMIT, "renewals: " + s.renewals);
            assertTrue(o.counts().retried() > 0, "another member took records of the stalled member: " + o.counts());
        }
    }

    /**
     * SIGTERM while a member stalls renewing its locks: its shutdown hook stops the loop, the next renewal throws
     * through the sink, and the member gives the batch back, its claims, then its records, as a shutdown and not as
     * a failure of its sink. The other member finishes the topic: none lost or counted twice, and none of the batch
     * written twice, since the stopped member wrote none of it.
     */
    @Test
    void stoppingAMemberWhileItRenewsGivesItsBatchBack() throws Exception {
        try (ShareGroupRun run = run("renew-stopped", Duration.ofSeconds(6))) {
            ChildJvm stopped = run.start(0, "stallAt=2", "stallMs=" + STALL_MS, "renew");
            String stalling = stopped.awaitLine(l -> l.startsWith("STALLING"), Duration.ofSeconds(60));
            run.start(1);
            stopped.awaitLine(l -> l.equals("RENEWED"), Duration.ofSeconds(60));
            int exit = stopped.terminate(Duration.ofSeconds(20));
            ShareGroupRun.Outcome o = run.finish();

            int batch = Integer.parseInt(stalling.split(" ")[1]);
            List<String> lines = stopped.output().lines().toList();
            List<String> afterStall = lines.subList(lines.indexOf(stalling), lines.size());
            long renewals = afterStall.stream().filter(l -> l.equals("RENEWED")).count();
            long refused =
                    afterStall.stream().filter(l -> l.startsWith("REFUSED")).count();
            Report.line(String.format(
                    "share    %-24s SIGTERM after %d renewals (%d refused): the stalled batch of %d records given"
                            + " back; exit %d; retry %d, processed twice %d",
                    run.name, renewals, refused, batch, exit, o.counts().retried(), o.reprocessed()));
            assertEquals(143, exit, "SIGTERM: the shutdown hook ends the loop and the JVM\n" + stopped.tail());
            assertFalse(afterStall.contains("STALLED done"), "stopped during the stall\n" + stopped.tail());
            assertTrue(
                    lines.stream().noneMatch(l -> l.startsWith("SINK FAILED")),
                    "a shutdown reported as a failure of the sink\n" + stopped.tail());
            assertTrue(
                    afterStall.contains("RELEASED " + batch),
                    "the stalled batch's " + batch + " claims given back\n" + stopped.tail());
            assertEquals(0, o.reprocessed(), "the stopped member wrote none of its batch");
        }
    }

    private record Stall(int records, long renewals, long refused) {}

    /** One member with {@code options}; returns once its stall is over. */
    private static Stall stall(ShareGroupRun run, String... options) throws Exception {
        ChildJvm member = run.start(0, options);
        String line = member.awaitLine(l -> l.startsWith("STALLING"), Duration.ofSeconds(60));
        member.awaitLine(l -> l.startsWith("STALLED done"), Duration.ofSeconds(60));
        long renewals = member.output().lines().filter(l -> l.equals("RENEWED")).count();
        long refused =
                member.output().lines().filter(l -> l.startsWith("REFUSED")).count();
        return new Stall(Integer.parseInt(line.split(" ")[1]), renewals, refused);
    }

    private static void report(ShareGroupRun run, Stall s, ShareGroupRun.Outcome o) {
        Report.line(String.format(
                "share    %-24s delivery limit %d; the stalled batch held %d records, %d renewals, %d refused"
                        + " commits during the stall; processed twice: %d",
                run.name, DELIVERY_LIMIT, s.records, s.renewals, s.refused, o.reprocessed()));
    }

    private static ShareGroupRun run(String name, Duration producing) throws Exception {
        return new ShareGroupRun(services.broker(), services.dir(), name, UNIQUE, PARTITIONS, producing);
    }
}
