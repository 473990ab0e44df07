package dev.dedup.agent.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.config.value.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanCommandTest {

    @Test
    void tapjoysVolume_fitsThreeShardsOf25GB() {
        Plan p = PlanCommand.parse(List.of("--rate", "2M/min", "--window", "24h"));
        assertEquals(2_000_000 / 60.0, p.idsPerSecond(), 1e-9);
        assertEquals(2.88e9 * (1 + 1.0 / 48), p.claimsHeld(), 1);
        assertEquals(p.claimsHeld() * 20.0, p.redisBytes(), 1);
        assertEquals(3, p.shards());
        assertTrue(p.bytesPerShard() <= Plan.FILL_AT * 25e9);
        assertEquals((long) Math.ceil(25e9 / 0.7), p.podMemoryLimit());
        assertEquals(75_000_000_000L, p.podDisk());
    }

    @Test
    void tenTimesTheVolume_takesTenTimesTheShards_andEventTimeHoldsTwoWindowsOnFewerCores() {
        Plan fingerprint = PlanCommand.parse(List.of("--rate", "20M/min"));
        Plan eventTime = PlanCommand.parse(List.of("--rate", "20M/min", "--layout", "event-time"));
        assertEquals(30, fingerprint.shards());
        assertEquals(2 * 20e6 / 60 * 86_400, eventTime.claimsHeld(), 1e3);
        assertTrue(eventTime.redisCores() < fingerprint.redisCores() / 2, eventTime.redisCores() + " cores");
        assertEquals(
                fingerprint.redisCores() * 10,
                PlanCommand.parse(List.of("--rate", "200M/min")).redisCores(),
                1e-9);
    }

    @Test
    void ratesAreReadInTheirUnit() {
        assertEquals(33_334, PlanCommand.rate("33334"), 1e-9);
        assertEquals(33_334, PlanCommand.rate("33334/s"), 1e-9);
        assertEquals(1_500, PlanCommand.rate("1.5K/s"), 1e-9);
        assertEquals(120e6 / 3600, PlanCommand.rate("120M/h"), 1e-9);
        assertEquals(1e9 / 86_400, PlanCommand.rate("1G/d"), 1e-9);
    }

    @Test
    void badArguments_exit2_withALineNamingThem() {
        for (List<String> args : List.<List<String>>of(
                List.of(),
                List.of("--rate", "fast"),
                List.of("--rate", "0/s"),
                List.of("--rate", "1M/min", "--window", "1 day"),
                List.of("--rate", "1M/min", "--layout", "hash"),
                List.of("--rate", "1M/min", "--shard-maxmemory", "lots"),
                List.of("--rate", "1M/min", "--shard-maxmemory", "1000"),
                List.of("--rate", "1M/min", "--colour", "red"),
                List.of("--rate", "1M/min", "--redis-cluster-groups", "30"),
                List.of("--rate", "1M/min", "--output", "helm"),
                List.of("--rate", "20M/min", "--redis-cluster-groups", "8", "--output", "kustomize"),
                List.of("--rate"))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = PlanCommand.run(args, print(out), print(err));
            String said = err.toString(StandardCharsets.UTF_8);
            assertEquals(2, status, args + ": " + said);
            assertTrue(said.startsWith("dedup-agent plan: "), said);
            assertEquals("", out.toString(StandardCharsets.UTF_8), args.toString());
        }
        assertThrows(ConfigException.class, () -> PlanCommand.parse(List.of("--window", "24h")));
    }

    @Test
    void thePrintedPlan_namesShardsMemoryAndCpu() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = PlanCommand.run(
                List.of("--rate=2M/min", "--window=24h", "--shard-maxmemory", "25GB"), print(out), print(out));
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, text);
        assertTrue(text.startsWith("33,333 ids a second for a 24h window, fingerprint tables"), text);
        assertTrue(text.matches("(?s).*claims held +2,940,000,000 .*"), text);
        assertTrue(text.matches("(?s).*Redis memory for them +58.8 GB .*"), text);
        assertTrue(text.matches("(?s).*shards +3 of maxmemory 25 GB, .*"), text);
        assertTrue(text.matches("(?s).*memory limit 34Gi, volume 70Gi;.*"), text);
    }

    @Test
    void aRedisCluster_isPlannedOnItsBusiestMaster_whichHoldsAWholeNumberOfGroups() {
        Plan tapjoy = PlanCommand.parse(List.of("--rate", "2M/min", "--window", "24h"));
        // 3 masters hold 11, 11 and 10 of 32 groups: 11/32 of 58.8 GB is over 80 % of 25 GB; 4 hold 8 each
        assertEquals(11, Plan.busiestMasterGroups(32, 3));
        assertTrue(tapjoy.busiestMasterBytes(32, 3) > Plan.FILL_AT * 25e9);
        assertEquals(4, tapjoy.clusterMasters(32));
        assertEquals(3, tapjoy.clusterMasters(1024), "342 of 1,024 groups fit");
        Plan small = PlanCommand.parse(List.of("--rate", "1K/s", "--window", "1h"));
        assertEquals(Plan.MIN_CLUSTER_MASTERS, small.clusterMasters(32), "never fewer than 3 masters");
        Plan tenTimes = PlanCommand.parse(List.of("--rate", "20M/min"));
        assertEquals(32, tenTimes.clusterMasters(32));
        IllegalArgumentException tooFew =
                assertThrows(IllegalArgumentException.class, () -> tenTimes.clusterMasters(16));
        assertTrue(tooFew.getMessage().contains("use 32 or more"), tooFew.getMessage());
    }

    @Test
    void theKustomizeOutput_setsThePodsMemoryAndVolumeOfTheClusterOverlay() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = PlanCommand.run(
                List.of("--rate", "2M/min", "--window", "24h", "--output", "kustomize"), print(out), print(out));
        String yaml = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, yaml);
        assertTrue(yaml.startsWith("# java -jar dedup-agent.jar plan --rate 2M/min --window 24h --output kustomize\n"));
        assertTrue(yaml.contains("\n  - ../redis-cluster\n"), yaml);
        assertTrue(yaml.contains("  - name: dedup-redis-cluster\n    count: 8\n"), yaml);
        assertEquals(2, yaml.split("value: 34Gi\n", -1).length - 1, yaml);
        assertTrue(
                yaml.contains("/spec/volumeClaimTemplates/0/spec/resources/requests/storage\n        value: 70Gi\n"));
        assertTrue(yaml.contains("the busiest holds 8 of the 32 groups"), yaml);
    }

    @Test
    void theTextOutput_namesTheClusterToo() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PlanCommand.run(List.of("--rate", "2M/min"), print(out), print(out));
        assertTrue(
                out.toString(StandardCharsets.UTF_8)
                        .contains("as a Redis Cluster     4 masters with a replica each, 8 pods; the busiest holds 8"
                                + " of 32 groups, 59 % full"),
                out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aWindowOfAWeek_isPlannedLikeAnyOther() {
        Plan p = new Plan(1000, Duration.ofDays(7), Plan.Layout.FINGERPRINT, 25_000_000_000L);
        assertEquals(1000 * 7 * 86_400.0 * (1 + 1.0 / 48), p.claimsHeld(), 1);
    }

    private static PrintStream print(ByteArrayOutputStream bytes) {
        return new PrintStream(bytes, true, StandardCharsets.UTF_8);
    }
}
