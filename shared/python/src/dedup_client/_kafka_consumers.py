"""The consumer loop's port to a Kafka client: poll, seek, commit; one adapter for kafka-python, one for
confluent-kafka. Neither library is imported unless its consumer is the one given."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

Fields = Tuple[str, int, int, int, Optional[Sequence[Tuple[str, Any]]]]


def fields(record: Any) -> Fields:
    """``(topic, partition, offset, timestamp in ms, headers)`` of a kafka-python ``ConsumerRecord``
    (attributes) or a confluent-kafka ``Message`` (methods; its timestamp is ``(type, ms)``)."""
    if callable(record.topic):
        return record.topic(), record.partition(), record.offset(), record.timestamp()[1], record.headers()
    return record.topic, record.partition, record.offset, record.timestamp, record.headers


class Polled:
    """One partition's records of a poll, in offset order."""

    __slots__ = ("key", "topic", "partition", "records", "first_offset", "next_offset")

    def __init__(self, key: Any, topic: str, partition: int, records: List[Any]) -> None:
        self.key = key  # the consumer's own partition object, which its seek wants
        self.topic = topic
        self.partition = partition
        self.records = records
        self.first_offset = fields(records[0])[2]
        self.next_offset = fields(records[-1])[2] + 1


class KafkaPython:
    """kafka-python's ``KafkaConsumer``: ``poll`` answers records per ``TopicPartition`` and moves the
    positions past them; ``seek`` moves a position back."""

    def __init__(self, consumer: Any) -> None:
        self.consumer = consumer

    def poll(self, timeout_ms: int, max_records: int) -> List[Polled]:
        polled = self.consumer.poll(timeout_ms=timeout_ms, max_records=max_records)
        return [Polled(tp, tp.topic, tp.partition, list(records)) for tp, records in polled.items() if records]

    def seek(self, polled: Polled, offset: int) -> None:
        self.consumer.seek(polled.key, offset)

    def commit(self, offsets: Dict[Any, int]) -> None:
        # The positions: past what the sink was given, and back where a batch was sought back; so they are
        # the offsets the sink stored, and this needs none of kafka-python's own types.
        self.consumer.commit()


class Confluent:
    """confluent-kafka's ``Consumer``: ``consume`` answers a list of messages; the offsets are committed as
    given, since librdkafka's stored offsets stay past a batch sought back."""

    def __init__(self, consumer: Any) -> None:
        import confluent_kafka

        self.consumer = consumer
        self.kafka = confluent_kafka

    def poll(self, timeout_ms: int, max_records: int) -> List[Polled]:
        by_partition: Dict[Tuple[str, int], List[Any]] = {}
        for message in self.consumer.consume(num_messages=max_records, timeout=timeout_ms / 1000):
            error = message.error()
            if error is not None:
                if error.code() == self.kafka.KafkaError._PARTITION_EOF:
                    continue
                raise self.kafka.KafkaException(error)
            by_partition.setdefault((message.topic(), message.partition()), []).append(message)
        return [Polled(key, key[0], key[1], records) for key, records in by_partition.items()]

    def seek(self, polled: Polled, offset: int) -> None:
        self.consumer.seek(self.kafka.TopicPartition(polled.topic, polled.partition, offset))

    def commit(self, offsets: Dict[Any, int]) -> None:
        committed = self.consumer.commit(
            offsets=[self.kafka.TopicPartition(tp[0], tp[1], offset) for tp, offset in offsets.items()],
            asynchronous=False,
        )
        for tp in committed or ():
            if tp.error is not None:
                raise self.kafka.KafkaException(tp.error)


def adapt(consumer: Any) -> Any:
    """The adapter of ``consumer``: confluent-kafka's has ``consume(num_messages, timeout)``, kafka-python's
    ``poll(timeout_ms, max_records)`` alone."""
    if callable(getattr(consumer, "consume", None)):
        return Confluent(consumer)
    if callable(getattr(consumer, "poll", None)):
        return KafkaPython(consumer)
    raise TypeError(f"consumer: a kafka.KafkaConsumer or a confluent_kafka.Consumer, got {type(consumer).__name__}")
