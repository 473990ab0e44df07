package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.agent.testing.ProjectVersion;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real jar says which version it is, the one the build gave it: {@code --version}, the start line,
 * {@code /v1/stats} and {@code dedup_build_info} on {@code /metrics}.
 */
class VersionIT {

    @TempDir
    Path work;

    @Test
    void versionFlag_printsTheVersionAndExitsZero() throws Exception {
        try (AgentProcess agent = AgentProcess.launch(work, "--version")) {
            assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)), agent.output());
            assertEquals("dedup-agent " + ProjectVersion.expected() + "\n", agent.output());
        }
    }

    @Test
    void versionFlag_comesBeforeAnySetting_badOnesIncluded() throws Exception {
        try (AgentProcess agent =
                AgentProcess.launch(work, Map.of("DEDUP_PROT", "1"), "--window", "forever", "--version", "--nope")) {
            assertEquals(0, agent.awaitExit(Duration.ofSeconds(30)), agent.output());
            assertEquals("dedup-agent " + ProjectVersion.expected() + "\n", agent.output());
        }
    }

    @Test
    void aRunningAgent_reportsItsVersion_inTheStartLine_stats_andMetrics() throws Exception {
        String version = ProjectVersion.expected();
        try (AgentProcess agent = AgentProcess.start(work, "--embedded-slots", "65536")) {
            assertTrue(agent.output().contains("dedup-agent " + version + " listening on http://"), agent.output());

            String stats = AgentHttp.text(AgentHttp.ok(agent.http().get("/v1/stats")));
            assertTrue(stats.contains("\"version\" : \"" + version + "\""), stats);

            // The child runs on this test's own java, so its runtime version is this one's.
            String series = "dedup_build_info{java=\"" + Runtime.version() + "\",version=\"" + version + "\"} 1";
            String metrics = AgentHttp.text(AgentHttp.ok(agent.http().get("/metrics")));
            assertTrue(metrics.lines().anyMatch(series::equals), series + " not in:\n" + metrics);
        }
    }
}
