package dev.dedup.agent.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * On a {@link RedisShards} parameter: that many fresh redis-servers, in a folder of their own, for the method that
 * takes them; stopped, and their folder deleted, once it is done (after the test, or after the class for a
 * {@code @BeforeAll} method).
 */
@Target(ElementType.PARAMETER)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(Shards.Resolver.class)
public @interface Shards {

    /** How many servers. */
    int value();

    /** Starts the servers a {@code @Shards} parameter asks for. */
    final class Resolver implements ParameterResolver {

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == RedisShards.class && parameter.isAnnotated(Shards.class);
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            int count = parameter.findAnnotation(Shards.class).orElseThrow().value();
            try {
                Path dir = Folders.create("dedup-shards-");
                RedisShards shards = RedisShards.start(count, dir);
                AutoCloseable stop = () -> {
                    shards.close();
                    Folders.delete(dir);
                };
                context.getStore(ExtensionContext.Namespace.create(Shards.class))
                        .put(parameter, stop);
                return shards;
            } catch (Exception e) {
                throw new IllegalStateException("could not start " + count + " redis-servers", e);
            }
        }
    }
}
