package dev.dedup.client;

import dev.dedup.wire.Limits;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The owner of one delivery, written one way per source, so that every worker of a namespace writes it alike.
 *
 * <p>The owner says where this copy of a message sits: reading the same copy again (a retried task, a consumer
 * restarted before its commit, a redelivery) must give the same owner, which the agent answers {@code RETRY}; another
 * copy of the message has another owner and is answered {@code DUPLICATE}. Two workers of one namespace that write
 * the owner of the same delivery differently (one {@code 3:1042}, the other {@code clicks:3:1042}) get {@code
 * DUPLICATE} for a re-read after a crash, and that message is lost. Build owners here, in every worker, and they
 * cannot disagree; the Python client's {@code kafka_owner}, {@code kinesis_owner}, {@code sqs_owner}, {@code
 * rabbitmq_owner} and {@code rabbitmq_stream_owner} return the same strings for the same values.
 *
 * <p>Each method takes the plain values the source's client gives, so this class needs no Kafka, AWS or RabbitMQ
 * library. An owner longer than the contract's {@value Limits#MAX_OWNER_BYTES} UTF-8 bytes (a long topic or queue
 * name) is replaced by {@code #} and the first 32 hex digits of its SHA-256: the same delivery still gives the same
 * owner, and no readable owner starts with {@code #}. A value the source could not have given is refused with an
 * {@link IllegalArgumentException} naming the parameter (a {@link NullPointerException} for {@code null}).
 */
public final class Owners {

    /** Kafka's topic names: 1 to 249 of {@code A-Z a-z 0-9 . _ -}. */
    private static final Pattern KAFKA_TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");
    /** Kinesis stream names and shard ids: 1 to 128 of {@code A-Z a-z 0-9 . _ -}. */
    private static final Pattern KINESIS_NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    /** Kinesis sequence numbers: decimal, no leading zero, at most 129 digits. */
    private static final Pattern KINESIS_SEQUENCE = Pattern.compile("0|[1-9][0-9]{0,128}");
    /** SQS message ids: UUIDs; at most 100 characters. */
    private static final Pattern SQS_MESSAGE_ID = Pattern.compile("[A-Za-z0-9_-]{1,100}");
    /** RabbitMQ's longest queue name, in UTF-8 bytes. */
    private static final int RABBITMQ_MAX_QUEUE_BYTES = 255;
    /** The longest publish id, in UTF-8 bytes. */
    private static final int MAX_PUBLISH_ID_BYTES = 128;
    /** Hex digits of the SHA-256 kept when an owner is too long: 128 bits. */
    private static final int DIGEST_HEX_DIGITS = 32;

    private Owners() {}

    /**
     * A Kafka record: {@code topic:partition:offset}, e.g. {@code clicks:3:81418110694}. The topic is part of it so
     * that records of several topics claimed in one namespace (a retry topic, a mirror, a share group member
     * reading several) never share an owner.
     *
     * @throws IllegalArgumentException when {@code topic} is not a Kafka topic name, or a number is negative
     */
    public static String kafka(String topic, int partition, long offset) {
        require(topic, "topic", KAFKA_TOPIC, "a Kafka topic name (1 to 249 of A-Z a-z 0-9 . _ -)");
        requireNotNegative(partition, "partition");
        requireNotNegative(offset, "offset");
        return fit(topic + ":" + partition + ":" + offset);
    }

    /**
     * A Kinesis record: {@code stream:shardId:sequenceNumber}, e.g. {@code
     * orders:shardId-000000000003:49590338271490256608559692538361571095921575989136588898}. Shard ids repeat from
     * stream to stream ({@code shardId-000000000000} is in every one), hence the stream's name (not its ARN).
     *
     * @throws IllegalArgumentException when a name is not a Kinesis stream name or shard id, or {@code
     *     sequenceNumber} is not a decimal sequence number
     */
    public static String kinesis(String stream, String shardId, String sequenceNumber) {
        return kinesis(stream, shardId, sequenceNumber, 0);
    }

    /**
     * A user record of a Kinesis record that the producer library aggregated: as {@link #kinesis(String, String,
     * String)}, then {@code :subSequenceNumber} when that is not 0, since the records of one aggregate share a
     * sequence number. With {@code 0} it is the three-argument owner, so that a worker that does not de-aggregate and
     * one that does agree on records that were not aggregated.
     *
     * @throws IllegalArgumentException as {@link #kinesis(String, String, String)}, or when {@code subSequenceNumber}
     *     is negative
     */
    public static String kinesis(String stream, String shardId, String sequenceNumber, long subSequenceNumber) {
        require(stream, "stream", KINESIS_NAME, "a Kinesis stream name (1 to 128 of A-Z a-z 0-9 . _ -; not an ARN)");
        require(shardId, "shardId", KINESIS_NAME, "a Kinesis shard id (1 to 128 of A-Z a-z 0-9 . _ -)");
        require(
                sequenceNumber,
                "sequenceNumber",
                KINESIS_SEQUENCE,
                "a Kinesis sequence number (decimal, no leading zero, at most 129 digits)");
        requireNotNegative(subSequenceNumber, "subSequenceNumber");
        String owner = stream + ":" + shardId + ":" + sequenceNumber;
        return fit(subSequenceNumber == 0 ? owner : owner + ":" + subSequenceNumber);
    }

    /**
     * An SQS message: its {@code MessageId}, as SQS gives it. SQS assigns it when the message is sent and keeps it
     * through every receive, so a redelivery (the visibility timeout ran out before the delete) is {@code RETRY},
     * while a message sent twice has two {@code MessageId}s, the second {@code DUPLICATE}. Never the receipt handle,
     * which changes with every receive: a redelivery would be {@code DUPLICATE}, and lost.
     *
     * @throws IllegalArgumentException when {@code messageId} is not 1 to 100 of {@code A-Z a-z 0-9 _ -} (a receipt
     *     handle is longer)
     */
    public static String sqs(String messageId) {
        return require(
                messageId,
                "messageId",
                SQS_MESSAGE_ID,
                "an SQS MessageId (1 to 100 of A-Z a-z 0-9 _ -; the receipt handle changes with every receive)");
    }

    /**
     * A message of a RabbitMQ classic or quorum queue: {@code queue:publishId}, where the publish id is a header the
     * publisher sets anew on every publish, retries included (a fresh UUID), and the broker keeps through every
     * redelivery. The delivery tag cannot serve: it counts deliveries on one channel, so a redelivery gets another
     * one, and another channel reuses it for another message. The queue is part of it so that the copies an
     * exchange routes to two queues of one namespace are told apart.
     *
     * @throws IllegalArgumentException when {@code queue} is empty or over 255 UTF-8 bytes, or {@code publishId} is
     *     empty, over 128 UTF-8 bytes or holds a {@code :}
     */
    public static String rabbitMq(String queue, String publishId) {
        requireQueue(queue, "queue");
        Objects.requireNonNull(publishId, "publishId");
        int bytes = utf8Length(publishId);
        if (bytes == 0 || bytes > MAX_PUBLISH_ID_BYTES || publishId.indexOf(':') >= 0) {
            throw new IllegalArgumentException("publishId: " + quote(publishId)
                    + " is not a publish id (1 to 128 UTF-8 bytes without ':', e.g. a UUID)");
        }
        return fit(queue + ":" + publishId);
    }

    /**
     * A message of a RabbitMQ stream: {@code stream:offset}, the offset the broker delivers it with ({@code
     * x-stream-offset}), the same on every read of it.
     *
     * @throws IllegalArgumentException when {@code stream} is empty or over 255 UTF-8 bytes, or {@code offset} is
     *     negative
     */
    public static String rabbitMqStream(String stream, long offset) {
        requireQueue(stream, "stream");
        requireNotNegative(offset, "offset");
        return fit(stream + ":" + offset);
    }

    /** The owner itself when it fits the contract, else {@code #} and 32 hex digits of its SHA-256. */
    static String fit(String owner) {
        byte[] utf8 = owner.getBytes(StandardCharsets.UTF_8);
        if (utf8.length <= Limits.MAX_OWNER_BYTES) {
            return owner;
        }
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(utf8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
        StringBuilder out = new StringBuilder(1 + DIGEST_HEX_DIGITS).append('#');
        for (int i = 0; i < DIGEST_HEX_DIGITS / 2; i++) {
            out.append(Character.forDigit((digest[i] >> 4) & 0xf, 16)).append(Character.forDigit(digest[i] & 0xf, 16));
        }
        return out.toString();
    }

    private static String require(String value, String name, Pattern pattern, String what) {
        Objects.requireNonNull(value, name);
        if (!pattern.matcher(value).matches()) {
            throw new IllegalArgumentException(name + ": " + quote(value) + " is not " + what);
        }
        return value;
    }

    private static void requireQueue(String queue, String name) {
        Objects.requireNonNull(queue, name);
        int bytes = utf8Length(queue);
        if (bytes == 0 || bytes > RABBITMQ_MAX_QUEUE_BYTES) {
            throw new IllegalArgumentException(
                    name + ": " + bytes + " UTF-8 bytes; a RabbitMQ queue name has 1 to " + RABBITMQ_MAX_QUEUE_BYTES);
        }
    }

    private static void requireNotNegative(long value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + ": " + value + " is negative");
        }
    }

    private static int utf8Length(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /** The value as it was given, shortened when long: enough to recognise it in a log. */
    private static String quote(String value) {
        return value.length() <= 60
                ? "\"" + value + "\""
                : "\"" + value.substring(0, 40) + "...\" (" + value.length() + " characters)";
    }
}
