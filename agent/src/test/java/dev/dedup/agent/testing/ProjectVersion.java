package dev.dedup.agent.testing;

/** The version the agent should report: the project's, which the build gives the tests as a system property. */
public final class ProjectVersion {

    private static final String PROPERTY = "dedup.project.version";

    private ProjectVersion() {}

    /** {@code 0.1.0}; fails when the tests run without the build's property (outside Maven). */
    public static String expected() {
        String version = System.getProperty(PROPERTY);
        if (version == null || version.isBlank()) {
            throw new IllegalStateException(
                    "-D" + PROPERTY + " is not set: run the tests with Maven, whose agent/pom.xml sets it");
        }
        return version;
    }
}
