package dev.dedup.examples.testing;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link SparkLocal} session for a test class, named after it, started before its first test and stopped after
 * its last, given to tests that take a {@link SparkSession} or read the field:
 * {@code @RegisterExtension static final SparkFixture spark = new SparkFixture();}.
 */
public final class SparkFixture implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private SparkSession session;

    @Override
    public void beforeAll(ExtensionContext context) {
        session = SparkLocal.start(context.getRequiredTestClass().getSimpleName());
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
