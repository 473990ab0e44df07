package dev.dedup.agent.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    void bindsOnceAndClosesWithOrWithoutProcessMeters() {
        new AgentMetrics().close();
        AgentMetrics bound = new AgentMetrics();
        bound.bindProcessMeters();
        bound.bindProcessMeters();
        bound.close();
        bound.close();
    }
}
