"""The owner of one delivery, written one way per source, so that every worker of a namespace writes it alike.

The owner says where this copy of a message sits: reading the same copy again (a retried task, a
consumer restarted before its commit, a redelivery) must give the same owner, which the agent answers
``retry``; another copy of the message has another owner and is answered ``duplicate``. Two workers of
one namespace that write the owner of the same delivery differently (one ``3:1042``, the other
``clicks:3:1042``) get ``duplicate`` for a re-read after a crash, and that message is lost. These
functions return the same strings as the Java client's ``dev.dedup.client.Owners`` for the same values.

An owner longer than the contract's 128 UTF-8 bytes (a long topic or queue name) is replaced by ``#`` and
the first 32 hex digits of its SHA-256: the same delivery still gives the same owner, and no readable
owner starts with ``#``. A value of the wrong type is a ``TypeError``, a value the source could not have
given a ``ValueError``, each naming the parameter.
"""

from __future__ import annotations

import hashlib
import re
from typing import Pattern, Union

MAX_OWNER_BYTES = 128

_KAFKA_TOPIC = re.compile(r"[A-Za-z0-9._-]{1,249}")
_KINESIS_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")
_KINESIS_SEQUENCE = re.compile(r"0|[1-9][0-9]{0,128}")
_SQS_MESSAGE_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")
_RABBITMQ_MAX_QUEUE_BYTES = 255
_MAX_PUBLISH_ID_BYTES = 128
_DIGEST_HEX_DIGITS = 32
_MAX_INT32 = 2**31 - 1
_MAX_INT64 = 2**63 - 1


def kafka_owner(topic: str, partition: int, offset: int) -> str:
    """A Kafka record: ``topic:partition:offset``, e.g. ``clicks:3:81418110694``.

    The topic is part of it so that records of several topics claimed in one namespace (a retry topic, a
    mirror, a consumer subscribed to several) never share an owner.

    Raises:
        TypeError: When ``topic`` is not a ``str`` or a number not an ``int``.
        ValueError: When ``topic`` is not a Kafka topic name (1 to 249 of ``A-Z a-z 0-9 . _ -``), or a
            number is negative or out of Kafka's range.
    """
    _require(topic, "topic", _KAFKA_TOPIC, "a Kafka topic name (1 to 249 of A-Z a-z 0-9 . _ -)")
    _require_number(partition, "partition", _MAX_INT32)
    _require_number(offset, "offset", _MAX_INT64)
    return _fit(f"{topic}:{partition}:{offset}")


def kinesis_owner(
    stream: str, shard_id: str, sequence_number: Union[str, int], sub_sequence_number: int = 0
) -> str:
    """A Kinesis record: ``stream:shardId:sequenceNumber``, then ``:subSequenceNumber`` when that is not 0.

    Shard ids repeat from stream to stream (``shardId-000000000000`` is in every one), hence the stream's
    name (not its ARN). ``sub_sequence_number`` tells apart the user records of a record the producer
    library aggregated, which share a sequence number; with 0 the owner is the same as without it, so a
    worker that does not de-aggregate and one that does agree on records that were not aggregated.
    ``sequence_number`` is the decimal text Kinesis gives (``record["SequenceNumber"]``) or an ``int``.

    Raises:
        TypeError: When a name is not a ``str``, ``sequence_number`` neither ``str`` nor ``int``, or
            ``sub_sequence_number`` not an ``int``.
        ValueError: When a name is not a Kinesis stream name or shard id (1 to 128 of
            ``A-Z a-z 0-9 . _ -``), ``sequence_number`` not a sequence number (decimal, no leading zero, at
            most 129 digits), or ``sub_sequence_number`` negative.
    """
    _require(stream, "stream", _KINESIS_NAME, "a Kinesis stream name (1 to 128 of A-Z a-z 0-9 . _ -; not an ARN)")
    _require(shard_id, "shard_id", _KINESIS_NAME, "a Kinesis shard id (1 to 128 of A-Z a-z 0-9 . _ -)")
    if isinstance(sequence_number, int) and not isinstance(sequence_number, bool):
        sequence_number = str(sequence_number)
    _require(
        sequence_number,
        "sequence_number",
        _KINESIS_SEQUENCE,
        "a Kinesis sequence number (decimal, no leading zero, at most 129 digits)",
        types="str or int",
    )
    _require_number(sub_sequence_number, "sub_sequence_number", _MAX_INT64)
    owner = f"{stream}:{shard_id}:{sequence_number}"
    return _fit(owner if sub_sequence_number == 0 else f"{owner}:{sub_sequence_number}")


def sqs_owner(message_id: str) -> str:
    """An SQS message: its ``MessageId``, as SQS gives it.

    SQS assigns it when the message is sent and keeps it through every receive, so a redelivery (the
    visibility timeout ran out before the delete) is ``retry``, while a message sent twice has two
    ``MessageId``\\ s, the second ``duplicate``. Never the receipt handle, which changes with every receive: a
    redelivery would be ``duplicate``, and lost.

    Raises:
        TypeError: When ``message_id`` is not a ``str``.
        ValueError: When it is not 1 to 100 of ``A-Z a-z 0-9 _ -`` (a receipt handle is longer).
    """
    return _require(
        message_id,
        "message_id",
        _SQS_MESSAGE_ID,
        "an SQS MessageId (1 to 100 of A-Z a-z 0-9 _ -; the receipt handle changes with every receive)",
    )


def rabbitmq_owner(queue: str, publish_id: str) -> str:
    """A message of a RabbitMQ classic or quorum queue: ``queue:publishId``.

    The publish id is a header the publisher sets anew on every publish, retries included (a fresh UUID),
    and the broker keeps through every redelivery. The delivery tag cannot serve: it counts deliveries on
    one channel, so a redelivery gets another one, and another channel reuses it for another message. The
    queue is part of it so that the copies an exchange routes to two queues of one namespace are told apart.

    Raises:
        TypeError: When an argument is not a ``str``.
        ValueError: When ``queue`` is empty or over 255 UTF-8 bytes, or ``publish_id`` is empty, over 128
            UTF-8 bytes or holds a ``:``.
    """
    _require_queue(queue, "queue")
    _require_type(publish_id, "publish_id", str, "str")
    if not 0 < len(publish_id.encode("utf-8")) <= _MAX_PUBLISH_ID_BYTES or ":" in publish_id:
        raise ValueError(
            f"publish_id: {_quote(publish_id)} is not a publish id (1 to 128 UTF-8 bytes without ':', e.g. a UUID)"
        )
    return _fit(f"{queue}:{publish_id}")


def rabbitmq_stream_owner(stream: str, offset: int) -> str:
    """A message of a RabbitMQ stream: ``stream:offset``, the offset the broker delivers it with
    (``x-stream-offset``), the same on every read of it.

    Raises:
        TypeError: When ``stream`` is not a ``str`` or ``offset`` not an ``int``.
        ValueError: When ``stream`` is empty or over 255 UTF-8 bytes, or ``offset`` is negative.
    """
    _require_queue(stream, "stream")
    _require_number(offset, "offset", _MAX_INT64)
    return _fit(f"{stream}:{offset}")


def _fit(owner: str) -> str:
    """The owner itself when it fits the contract, else ``#`` and 32 hex digits of its SHA-256."""
    utf8 = owner.encode("utf-8")
    if len(utf8) <= MAX_OWNER_BYTES:
        return owner
    return "#" + hashlib.sha256(utf8).hexdigest()[:_DIGEST_HEX_DIGITS]


def _require(value: object, name: str, pattern: Pattern[str], what: str, types: str = "str") -> str:
    _require_type(value, name, str, types)
    assert isinstance(value, str)
    if not pattern.fullmatch(value):
        raise ValueError(f"{name}: {_quote(value)} is not {what}")
    return value


def _require_type(value: object, name: str, kind: type, types: str) -> None:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise TypeError(f"{name}: {type(value).__name__} {value!r:.60}; expected {types}")


def _require_number(value: object, name: str, largest: int) -> None:
    _require_type(value, name, int, "int")
    assert isinstance(value, int)
    if value < 0:
        raise ValueError(f"{name}: {value} is negative")
    if value > largest:
        raise ValueError(f"{name}: {value} is over {largest}")


def _require_queue(queue: object, name: str) -> None:
    _require_type(queue, name, str, "str")
    assert isinstance(queue, str)
    size = len(queue.encode("utf-8"))
    if not 0 < size <= _RABBITMQ_MAX_QUEUE_BYTES:
        raise ValueError(f"{name}: {size} UTF-8 bytes; a RabbitMQ queue name has 1 to {_RABBITMQ_MAX_QUEUE_BYTES}")


def _quote(value: str) -> str:
    """The value as it was given, shortened when long: enough to recognise it in a log."""
    return f'"{value}"' if len(value) <= 60 else f'"{value[:40]}..." ({len(value)} characters)'
