package dev.dedup.agent.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.testing.ProjectVersion;
import org.junit.jupiter.api.Test;

class BuildInfoTest {

    @Test
    void current_isTheProjectsVersion_filledInByTheBuild() {
        assertEquals(ProjectVersion.expected(), BuildInfo.current().version());
    }

    @Test
    void current_javaIsTheRuntimesVersion() {
        assertEquals(Runtime.version().toString(), BuildInfo.current().java());
    }

    @Test
    void line_isWhatTheVersionFlagPrints() {
        assertEquals("dedup-agent 1.2.3", new BuildInfo("1.2.3", "17").line());
    }
}
