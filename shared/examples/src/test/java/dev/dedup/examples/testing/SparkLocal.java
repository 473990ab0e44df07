package dev.dedup.examples.testing;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Spark in local mode inside the test JVM: two threads ({@code local[2,4]}: up to 4 attempts per task, so that a task
 * failure is retried as on a cluster), no UI, loopback only, two shuffle partitions. As an extension, one session
 * for a test class, named after it and stopped after its last test, given to tests that take a {@link SparkSession}:
 * {@code @RegisterExtension static final SparkLocal spark = new SparkLocal();}.
 */
public final class SparkLocal implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private SparkSession session;

    public static SparkSession start(String app) {
        return SparkSession.builder()
                .master("local[2,4]")
                .appName(app)
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.adaptive.enabled", "false")
                .config("spark.sql.streaming.metricsEnabled", "false")
                .getOrCreate();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        session = start(context.getRequiredTestClass().getSimpleName());
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (session != null) {
            session.stop();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == SparkSession.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return session;
    }

    public SparkSession session() {
        return session;
    }
}
