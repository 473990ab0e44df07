package dev.dedup.agent.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.ProjectVersion;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentMetricsTest {

    @Test
    void processMetersComeWithBindProcessMeters() {
        try (AgentMetrics metrics = new AgentMetrics()) {
            assertTrue(metrics.scrape().contains("dedup_claims_total"));
            assertTrue(metrics.scrape().contains("jvm_gc_"), "the GC listener from the start");
            assertFalse(metrics.scrape().contains("jvm_memory_used_bytes"), "bound before the agent listens");

            metrics.bindProcessMeters();
            String bound = metrics.scrape();
            for (String series : new String[] {"jvm_memory_used_bytes", "jvm_threads_live", "process_cpu_usage"}) {
                assertTrue(bound.contains(series), series);
            }
        }
    }

    @Test
    void buildInfo_isOneSeriesOfValueOne_taggedWithTheVersionAndTheJava() {
        try (AgentMetrics metrics = new AgentMetrics(new BuildInfo("9.8.7", "21.0.4+7"))) {
            List<String> series = metrics.scrape()
                    .lines()
                    .filter(l -> l.startsWith("dedup_build_info"))
                    .toList();
            assertEquals(List.of("dedup_build_info{java=\"21.0.4+7\",version=\"9.8.7\"} 1"), series);
        }
    }

    @Test
    void buildInfo_ofThisProcess_isTheProjectsVersionOnThisJava() {
        try (AgentMetrics metrics = new AgentMetrics()) {
            String expected = "dedup_build_info{java=\"" + Runtime.version() + "\",version=\""
                    + ProjectVersion.expected() + "\"} 1";
            assertTrue(metrics.scrape().lines().anyMatch(expected::equals), expected + " in " + metrics.scrape());
        }
    }

    @Test
    void bindsOnceAndClosesWithOrWithoutProcessMeters() {
        new AgentMetrics().close();
        AgentMetrics bound = new AgentMetrics();
        bound.bindProcessMeters();
        bound.bindProcessMeters();
        bound.close();
        bound.close();
    }
}
