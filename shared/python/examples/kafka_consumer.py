"""A Kafka consumer loop that skips duplicate messages: claim, process, commit; release on failure.

Written against Debian's ``python3-kafka`` (kafka-python 2.0): a ``KafkaConsumer`` with
``enable_auto_commit=False``. For each partition's records of a poll::

    claim the batch  ->  process what is not a duplicate  ->  commit the offsets
          |                         |
          | DedupError              | process() raised at record k
          v                         v
    seek back to the batch:   release the claims of records k.. (so that another copy is not
    nothing processed,        skipped on the strength of a claim whose processing failed),
    wait Retry-After          seek back to record k, wait, read it again

The message id is where the producer put it: by default the ``message-id`` header (``id_header`` names
another; ``id_of`` reads a field of the value instead), never the record key, which in most topics is a
partitioning key (a user, a device) shared by many messages: claiming it would skip every second event of
a key. Copies of a message written twice by a producer sit at two offsets, so they have two owners: the
first claimed is ``new`` and processed, the other ``duplicate`` and skipped. A record read again after a
crash, a rebalance or a seek has the same owner (``kafka_owner``: ``topic:partition:offset``):
``retry``, processed again, as at-least-once delivery requires. A record is never skipped without a
``duplicate`` verdict.

Kafka 4.x: kafka-python 2.0.2 works when it detects the broker's version itself (the default) or is
given ``api_version=(0, 11)`` or later; it then uses Fetch v4, ListOffsets v1, OffsetCommit v2 and
OffsetFetch v1, the oldest versions Kafka 4.2 still serves (KIP-896 removed the older ones in 4.0), and
the classic group protocol. With ``api_version`` below ``(0, 11)`` it sends Fetch v3 (and Produce v2),
which Kafka 4 no longer serves: the broker closes the connection and ``poll`` returns nothing, forever,
with errors only in the log.

Tested how: ``PythonConsumerPipelineIT`` (shared/examples) runs :func:`consume` with kafka-python's real
``KafkaConsumer`` (Debian's python3-kafka 2.0.2) against a Kafka 4.2.2 KRaft broker and the agent jar,
writing to a SQLite sink that keeps each partition's next offset in its transaction: a consumer killed
(``kill -9``) between its output and its offset commit, then restarted; processing failures in a group
of two; the sink compared with the ground truth (docs/pipelines.md). ``tests/test_examples.py`` runs it
against the real agent with a small in-test stand-in for the ``KafkaConsumer`` object alone: duplicates,
a failed ``process``, an agent that cannot be reached. :func:`run` (a command-line consumer that prints)
is not run by either.
"""

from __future__ import annotations

import logging
import time
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Sequence

from dedup_client import DedupClient, DedupError, Item, Verdict, kafka_owner

log = logging.getLogger(__name__)

#: The header the message id is read from unless ``consume`` is told otherwise.
ID_HEADER = "message-id"


def header(record: Any, name: str) -> str:
    """The value of the record's last header called ``name``, as UTF-8 text (the last, as
    ``dict(record.headers)`` and Java's ``lastHeader`` take it).

    Raises:
        ValueError: When the record has no such header, or an empty one: it cannot be deduplicated, and
            neither skipping nor guessing is right.
    """
    value = dict(record.headers or ()).get(name)
    if not value:
        where = kafka_owner(record.topic, record.partition, record.offset)
        raise ValueError(
            f"the record at {where} has no (or an empty) header {name}: its producer must set the message's id there"
        )
    return value.decode("utf-8") if isinstance(value, (bytes, bytearray)) else str(value)


def owner(record: Any) -> str:
    """Where this copy sits: ``topic:partition:offset`` (:func:`dedup_client.kafka_owner`), the same for
    every read of it, whichever worker reads it."""
    return kafka_owner(record.topic, record.partition, record.offset)


def consume(
    consumer: Any,
    dedup: DedupClient,
    ns: str,
    process: Callable[[Any], None],
    *,
    id_header: str = ID_HEADER,
    id_of: Optional[Callable[[Any], str]] = None,
    event_time: bool = False,
    max_records: int = 500,
    poll_timeout_ms: int = 1000,
    failure_backoff: float = 1.0,
    should_stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Polls ``consumer`` until ``should_stop()``: claims each partition's records, processes those that are
    not duplicates, then commits.

    Args:
        consumer: A ``kafka.KafkaConsumer`` subscribed or assigned, with ``enable_auto_commit=False``.
        dedup: The client of the agent beside this consumer.
        ns: The namespace the messages are claimed in.
        process: Does the work for one record; raising means it failed and the record is read again.
        id_header: The header the producer puts the message id in.
        id_of: A record's message id, when the producer puts it elsewhere (a field of the value); never
            the record key. The owner is always :func:`owner`, so that every worker of a namespace agrees.
        event_time: Send the record's timestamp (milliseconds) as its event second, for a namespace the
            agent files by event time.
        max_records: Records per poll.
        poll_timeout_ms: How long a poll waits for records.
        failure_backoff: Seconds to wait after a failed ``process``, or a failed claim without
            ``Retry-After``.
        should_stop: Checked before each poll.
        sleep: How to wait (tests pass a recorder).

    Commits go through ``consumer.commit()``: the positions of every assigned partition, a partition
    whose batch failed being sought back first. A commit that fails (a rebalance) raises out of the loop;
    whoever reads those records next gets ``retry`` for them and processes them again.
    """
    read_id: Callable[[Any], str] = id_of if id_of is not None else partial(header, name=id_header)
    while not should_stop():
        polled: Dict[Any, Sequence[Any]] = consumer.poll(timeout_ms=poll_timeout_ms, max_records=max_records)
        waits: List[float] = []
        for tp, records in polled.items():
            if records:
                wait = _handle(consumer, dedup, ns, process, tp, records, read_id, event_time, failure_backoff)
                if wait is not None:
                    waits.append(wait)
        if polled:
            consumer.commit()
        if waits:
            sleep(max(waits))


def _handle(
    consumer: Any,
    dedup: DedupClient,
    ns: str,
    process: Callable[[Any], None],
    tp: Any,
    records: Sequence[Any],
    id_of: Callable[[Any], str],
    event_time: bool,
    failure_backoff: float,
) -> Optional[float]:
    """One partition's records of a poll; the seconds to wait before reading again, or ``None`` when all went well."""
    items = [Item(id_of(r), owner(r), r.timestamp // 1000 if event_time else None) for r in records]
    try:
        verdicts = dedup.claim(ns, items)
    except DedupError as e:
        # No verdicts, so nothing may be skipped, nor processed twice by accident: read the batch again.
        log.warning("claim of %s records of %s failed, reading them again: %s", len(records), tp, e)
        consumer.seek(tp, records[0].offset)
        return e.retry_after if e.retry_after is not None else failure_backoff
    for k, (record, verdict) in enumerate(zip(records, verdicts)):
        if verdict == Verdict.DUPLICATE:
            continue
        try:
            process(record)
        except Exception:  # noqa: BLE001 - any failure of the worker's own code
            log.warning("processing %s offset %s failed; releasing and reading it again", tp, record.offset, exc_info=True)
            held = [item for item, v in zip(items[k:], verdicts[k:]) if v != Verdict.DUPLICATE]
            try:
                dedup.release(ns, held)
            except DedupError as e:
                # Still claimed by these owners: reading them again answers retry, so nothing is lost.
                log.warning("release failed: %s", e)
            consumer.seek(tp, record.offset)
            return failure_backoff
    return None


def run(
    bootstrap_servers: str,
    topic: str,
    group_id: str,
    process: Callable[[Any], None],
    *,
    url: Optional[str] = None,
    ns: str = "default",
    token: Optional[str] = None,
    id_header: str = ID_HEADER,
) -> None:
    """Builds a real ``KafkaConsumer`` (kafka-python) for ``topic`` and runs :func:`consume` until interrupted.

    The agent is the one the consumer's pod tells it about, ``DEDUP_URL`` (default ``http://127.0.0.1:7070``)
    and ``DEDUP_TOKEN``, unless ``url`` and ``token`` are given.
    """
    from kafka import KafkaConsumer  # Debian's python3-kafka; imported here so the loop itself needs none

    consumer = KafkaConsumer(
        topic,
        bootstrap_servers=bootstrap_servers,
        group_id=group_id,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
    )
    try:
        with DedupClient(url, token=token) as dedup:
            consume(consumer, dedup, ns, process, id_header=id_header)
    except KeyboardInterrupt:
        pass
    finally:
        consumer.close(autocommit=False)


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 5:
        sys.exit("usage: kafka_consumer.py BOOTSTRAP TOPIC GROUP NAMESPACE")
    logging.basicConfig(level=logging.INFO)
    run(sys.argv[1], sys.argv[2], sys.argv[3], lambda r: print(owner(r), header(r, ID_HEADER)), ns=sys.argv[4])
