package dev.dedup.agent.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * Which build of the agent runs, on which Java: what {@code --version}, the start line, {@code /v1/stats}'
 * {@code version} and the {@code dedup_build_info} gauge report, so that a report of trouble can say it.
 *
 * @param version the project's version the jar was built as ({@code 0.1.0})
 * @param java    the Java runtime's version ({@code 17.0.12+7})
 */
public record BuildInfo(String version, String java) {

    /** Written by the build (Maven resource filtering), next to this class, in the classes and in the jar alike. */
    static final String RESOURCE = "build-info.properties";

    private static final BuildInfo CURRENT =
            new BuildInfo(readVersion(), Runtime.version().toString());

    /** This process's. */
    public static BuildInfo current() {
        return CURRENT;
    }

    /** {@code dedup-agent 0.1.0}: the line {@code --version} prints. */
    public String line() {
        return "dedup-agent " + version;
    }

    private static String readVersion() {
        Properties props = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(
                        RESOURCE + " is missing from the classpath: build the agent with Maven");
            }
            props.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
        String version = props.getProperty("version", "").trim();
        // An unfiltered copy (an IDE's plain resource copy) would report the placeholder as a version.
        if (version.isEmpty() || version.contains("${")) {
            throw new IllegalStateException(
                    RESOURCE + " holds no version ('" + version + "'): build the agent with Maven, which fills it in");
        }
        return version;
    }
}
