"""The owners' exact strings: the same the Java client's ``OwnersTest`` asserts for the same values, so that
Java and Python workers of one namespace agree. No agent needed."""

from __future__ import annotations

import re

import pytest

from dedup_client import kafka_owner, kinesis_owner, rabbitmq_owner, rabbitmq_stream_owner, sqs_owner

SEQUENCE = "49590338271490256608559692538361571095921575989136588898"
UUID = "550e8400-e29b-41d4-a716-446655440000"


def test_kafka_isTopicPartitionOffset() -> None:
    assert kafka_owner("clicks", 3, 81418110694) == "clicks:3:81418110694"
    assert kafka_owner("a.b_c-D9", 0, 0) == "a.b_c-D9:0:0"


def test_kafka_theSameRecordInAnotherTopic_hasAnotherOwner() -> None:
    assert kafka_owner("clicks", 3, 5) != kafka_owner("clicks-retry", 3, 5)


def test_kafka_atTheContractsLimit_staysReadable_andOneByteMoreIsADigest() -> None:
    longest = "a" * 97 + ":2147483647:9223372036854775807"
    assert len(longest) == 128
    assert kafka_owner("a" * 97, 2**31 - 1, 2**63 - 1) == longest
    assert kafka_owner("a" * 98, 2**31 - 1, 2**63 - 1) == "#2de14cb6652aa6695b3898998988b543"


def test_kafka_theLongestTopicName_isADigest_theSameEveryTime() -> None:
    assert kafka_owner("x" * 249, 3, 42) == "#33d4695856670986c650aaf25dd6ca16"
    assert kafka_owner("x" * 249, 3, 42) != kafka_owner("x" * 249, 3, 43)


@pytest.mark.parametrize(
    "args, error, message",
    [
        (("", 0, 0), ValueError, 'topic: "" is not a Kafka topic name'),
        (("clicks:3", 0, 0), ValueError, 'topic: "clicks:3" is not'),
        (("a b", 0, 0), ValueError, 'topic: "a b" is not'),
        (("x" * 250, 0, 0), ValueError, 'topic: "xxxx'),
        (("clés", 0, 0), ValueError, 'topic: "clés" is not'),
        (("clicks", -1, 0), ValueError, "partition: -1 is negative"),
        (("clicks", 2**31, 0), ValueError, "partition: 2147483648 is over 2147483647"),
        (("clicks", 0, -5), ValueError, "offset: -5 is negative"),
        (("clicks", 0, 2**63), ValueError, "offset: 9223372036854775808 is over"),
        ((None, 0, 0), TypeError, "topic: NoneType None; expected str"),
        ((b"clicks", 0, 0), TypeError, "topic: bytes b'clicks'; expected str"),
        (("clicks", "3", 0), TypeError, "partition: str '3'; expected int"),
        (("clicks", True, 0), TypeError, "partition: bool True; expected int"),
        (("clicks", 0, 1.0), TypeError, "offset: float 1.0; expected int"),
    ],
)
def test_kafka_whatNoKafkaRecordHas_isRefused_namingTheParameter(args, error, message) -> None:
    with pytest.raises(error) as caught:
        kafka_owner(*args)
    assert str(caught.value).startswith(message), str(caught.value)


def test_kinesis_isStreamShardSequence() -> None:
    assert kinesis_owner("orders", "shardId-000000000003", SEQUENCE) == f"orders:shardId-000000000003:{SEQUENCE}"
    assert kinesis_owner("s", "shardId-000000000000", "0") == "s:shardId-000000000000:0"
    assert kinesis_owner("s", "shardId-000000000000", 17) == kinesis_owner("s", "shardId-000000000000", "17")


def test_kinesis_anAggregatedUserRecord_addsItsSubSequenceNumber_unlessZero() -> None:
    shard = "shardId-000000000003"
    assert kinesis_owner("orders", shard, SEQUENCE, 7) == f"orders:{shard}:{SEQUENCE}:7"
    assert kinesis_owner("orders", shard, SEQUENCE, 0) == kinesis_owner("orders", shard, SEQUENCE)


def test_kinesis_theLongestSequenceNumber_inALongStream_isADigest() -> None:
    owner = kinesis_owner("orders", "shardId-000000000003", "9" * 129)
    assert re.fullmatch("#[0-9a-f]{32}", owner), owner


@pytest.mark.parametrize(
    "args, error, message",
    [
        (
            ("arn:aws:kinesis:us-east-1:123456789012:stream/orders", "shardId-1", "1"),
            ValueError,
            'stream: "arn:aws:kinesis:us-east-1:123456789012:stream/orders" is not a Kinesis stream name',
        ),
        (("", "shardId-1", "1"), ValueError, 'stream: "" is not'),
        (("s", "", "1"), ValueError, 'shard_id: "" is not a Kinesis shard id'),
        (("s", "shardId-1", "007"), ValueError, 'sequence_number: "007" is not'),
        (("s", "shardId-1", "12a"), ValueError, 'sequence_number: "12a" is not'),
        (("s", "shardId-1", "-1"), ValueError, 'sequence_number: "-1" is not'),
        (("s", "shardId-1", -1), ValueError, 'sequence_number: "-1" is not'),
        (("s", "shardId-1", "1" * 130), ValueError, 'sequence_number: "1111'),
        (("s", "shardId-1", "1", -1), ValueError, "sub_sequence_number: -1 is negative"),
        (("s", "shardId-1", 1.5), TypeError, "sequence_number: float 1.5; expected str or int"),
        (("s", None, "1"), TypeError, "shard_id: NoneType None; expected str"),
    ],
)
def test_kinesis_whatNoKinesisRecordHas_isRefused_namingTheParameter(args, error, message) -> None:
    with pytest.raises(error) as caught:
        kinesis_owner(*args)
    assert str(caught.value).startswith(message), str(caught.value)


def test_sqs_isTheMessageId() -> None:
    assert sqs_owner(UUID) == UUID


def test_sqs_aReceiptHandle_isRefused() -> None:
    receipt_handle = (
        "AQEBwJnKyrHigUMZj6rYigCgxlaS3SLy0a+Fz6QWt5uTdyKYx2Xf0PdUWvWz5c8fg7/Bp0Hq4Q5Q0n"
        "Bf6LxbWMjmrdqsLoYv2jVkd3sPKeh1kOhLgjrOvD5o7lTwKdOsw4CBF2bz6gJSqJw1Y9Vj9ZzKIdTyaU8B1g=="
    )
    with pytest.raises(ValueError) as caught:
        sqs_owner(receipt_handle)
    assert str(caught.value).startswith(
        'message_id: "AQEBwJnKyrHigUMZj6rYigCgxlaS3SLy0a+Fz6QW..." (164 characters) is not an SQS MessageId'
    )
    for bad in ("", "a:b", "x" * 101):
        with pytest.raises(ValueError, match="message_id: "):
            sqs_owner(bad)
    with pytest.raises(TypeError, match="message_id: bytes"):
        sqs_owner(UUID.encode())


def test_rabbitmq_isQueueAndPublishId() -> None:
    assert rabbitmq_owner("orders", UUID) == f"orders:{UUID}"
    assert rabbitmq_owner("amq.gen-1", "x") == "amq.gen-1:x"
    assert rabbitmq_owner("a:b", "c") == "a:b:c"  # a queue name may hold ':'; a publish id may not
    assert rabbitmq_owner("orders", UUID) != rabbitmq_owner("orders-audit", UUID)


def test_rabbitmq_aLongQueueName_isADigest_countingUtf8Bytes() -> None:
    assert rabbitmq_owner("q" * 100, UUID) == "#0dad8d8d04e33a954014a32904f1fb32"
    fits = "é" * 63 + ":x"
    assert len(fits.encode("utf-8")) == 128
    assert rabbitmq_owner("é" * 63, "x") == fits
    assert rabbitmq_owner("é" * 64, "x") == "#522ff354c3a5abbcaeebb72e5cc25154"


@pytest.mark.parametrize(
    "args, error, message",
    [
        (("", UUID), ValueError, "queue: 0 UTF-8 bytes; a RabbitMQ queue name has 1 to 255"),
        (("é" * 128, UUID), ValueError, "queue: 256 UTF-8 bytes"),
        (("orders", ""), ValueError, 'publish_id: "" is not a publish id'),
        (("orders", "7:8"), ValueError, 'publish_id: "7:8" is not'),
        (("orders", "x" * 129), ValueError, 'publish_id: "xxxx'),
        (("orders", None), TypeError, "publish_id: NoneType None; expected str"),
        ((7, UUID), TypeError, "queue: int 7; expected str"),
    ],
)
def test_rabbitmq_whatIsNotAQueueOrAPublishId_isRefused(args, error, message) -> None:
    with pytest.raises(error) as caught:
        rabbitmq_owner(*args)
    assert str(caught.value).startswith(message), str(caught.value)


def test_rabbitmqStream_isStreamAndOffset() -> None:
    assert rabbitmq_stream_owner("events", 0) == "events:0"
    assert rabbitmq_stream_owner("events", 2**63 - 1) == "events:9223372036854775807"
    with pytest.raises(ValueError, match="^offset: -1 is negative$"):
        rabbitmq_stream_owner("events", -1)
    with pytest.raises(ValueError, match="^stream: 0 UTF-8 bytes"):
        rabbitmq_stream_owner("", 1)
