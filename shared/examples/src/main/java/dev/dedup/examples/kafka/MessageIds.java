package dev.dedup.examples.kafka;

/**
 * The header the examples' producers carry the message id in, for the Spark job ({@link dev.dedup.examples.spark.SparkDedupJob});
 * the consumer loops read it with the library's {@link dev.dedup.kafka.MessageIds}.
 */
public final class MessageIds {

    /** {@value}, the same name as {@link dev.dedup.kafka.MessageIds#DEFAULT_HEADER}. */
    public static final String DEFAULT_HEADER = dev.dedup.kafka.MessageIds.DEFAULT_HEADER;

    private MessageIds() {}
}
