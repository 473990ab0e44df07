"""A Kafka consumer loop that skips duplicate messages: claim, hand the rest to the sink, commit.

For kafka-python's ``KafkaConsumer`` and confluent-kafka's ``Consumer``, each built with auto-commit off::

    from dedup_client.kafka import consume

    def write(records, offsets):  # one transaction: the output, and each partition's next offset
        ...

    consume(consumer, "clicks", write)

Per poll::

    claim each partition's records  ->  sink(kept records, next offsets)  ->  commit those offsets
          |                                  |
          | DedupError (not a 4xx)           | the sink raised
          v                                  v
    seek that partition back:          release the claims of the kept records (so that another copy
    none of it goes to the sink,       is not skipped on the strength of a claim whose output failed),
    wait Retry-After                   seek every partition of the poll back, wait, read them again

The message id is where the producer put it: by default the ``message-id`` header (``id_header`` names
another; ``id_of`` reads a field of the value instead), never the record key, which in most topics is a
partitioning key (a user, a device) shared by many messages: claiming it would skip every second event of a
key. Copies of a message written twice sit at two offsets, so they have two owners: the first claimed is
``new`` and kept, the other ``duplicate`` and skipped. A record read again after a crash, a rebalance or a
seek has the same owner (:func:`dedup_client.kafka_owner`, ``topic:partition:offset``): ``retry``, kept again,
as at-least-once delivery requires. A record is never skipped without a ``duplicate`` verdict.

The sink writes the kept records and each partition's next offset in one transaction of its own. A crash
between that transaction and the commit makes the records be read again (``retry``); a sink that leaves alone
the records below the offset it stored keeps its output exact.

kafka-python and Kafka 4.x: kafka-python 2.0.2 works when it detects the broker's version itself (the
default) or is given ``api_version=(0, 11)`` or later (Fetch v4, ListOffsets v1, OffsetCommit v2, OffsetFetch
v1: the oldest Kafka 4 serves, after KIP-896). Below ``(0, 11)`` the broker closes its connections and
``poll`` returns nothing, forever, with errors only in the log.

Tested how: ``PythonConsumerPipelineIT`` (shared/examples) runs :func:`consume` with kafka-python's real
``KafkaConsumer`` (Debian's python3-kafka 2.0.2) and with confluent-kafka's real ``Consumer`` (Debian's
python3-confluent-kafka 1.7.0) against a Kafka 4.2.2 KRaft broker and the agent jar, writing to a SQLite sink
that keeps each partition's next offset in its transaction: a member killed (``kill -9``) between its sink and
its commit, then restarted; sink failures in a group of two; the sink compared with the ground truth. The
package's tests run it against the real agent with an in-test stand-in for the ``KafkaConsumer`` object alone
(duplicates, a failing sink, an agent that cannot be reached).
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ._client import DedupClient
from ._columns import ID_HEADER
from ._errors import DedupError
from ._kafka_consumers import Polled, adapt, fields
from ._owners import kafka_owner
from ._types import Item, Verdict

__all__ = ["ID_HEADER", "Sink", "TopicPartition", "consume", "dbapi_sink", "header", "owner", "value", "where"]

log = logging.getLogger(__name__)

_TABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}(\.[A-Za-z_][A-Za-z0-9_]{0,62})?")


class TopicPartition(NamedTuple):
    """A partition, as the sink's offsets are keyed; equal to kafka-python's ``TopicPartition`` of it."""

    topic: str
    partition: int


#: ``sink(records, offsets)``: writes the kept records (the consumer's own record objects, in poll order) and
#: stores ``offsets``, each partition's next offset, in one transaction. Raising means nothing was written.
Sink = Callable[[List[Any], Dict[TopicPartition, int]], None]


def header(record: Any, name: str) -> str:
    """The value of the record's last header called ``name``, as UTF-8 text (the last, as ``dict(headers)``
    and Java's ``lastHeader`` take it); a kafka-python or a confluent-kafka record.

    Raises:
        ValueError: When the record has no such header, or an empty one: it cannot be deduplicated, and
            neither skipping nor guessing is right.
    """
    topic, partition, offset, _, headers = fields(record)
    value = dict(headers or ()).get(name)
    if not value:
        raise ValueError(
            f"the record at {kafka_owner(topic, partition, offset)} has no (or an empty) header {name}:"
            " its producer must set the message's id there, or consume(..., id_of=...) must read it from the"
            " record (a field of its value)"
        )
    return value.decode("utf-8") if isinstance(value, (bytes, bytearray)) else str(value)


def owner(record: Any) -> str:
    """Where this copy sits: ``topic:partition:offset`` (:func:`dedup_client.kafka_owner`), the same for
    every read of it, whichever worker reads it; a kafka-python or a confluent-kafka record."""
    topic, partition, offset, _, _ = fields(record)
    return kafka_owner(topic, partition, offset)


def where(record: Any) -> Tuple[TopicPartition, int]:
    """The record's partition and offset, a kafka-python or a confluent-kafka record: what a sink compares with
    the next offset it stored (a record below it was written by an earlier transaction)."""
    topic, partition, offset, _, _ = fields(record)
    return TopicPartition(topic, partition), offset


def value(record: Any) -> Any:
    """The record's value (bytes, or what the consumer's deserializer made), a kafka-python or a confluent-kafka
    record."""
    return record.value() if callable(record.value) else record.value


def dbapi_sink(
    connection: Any,
    write: Callable[[Any, List[Any]], None],
    *,
    group: str,
    table: str = "stream_offsets",
    paramstyle: Optional[str] = None,
) -> Sink:
    """A ready :data:`Sink` for any DB-API 2 database (``sqlite3``, ``psycopg2``, ``pymysql``...): ``write`` writes the
    rows of the records not applied before, and the sink keeps each partition's next offset in ``table``, in one
    transaction of ``connection``.

    Each call locks the poll's partitions' rows of ``table`` (an ``UPDATE`` of each, a row lock in PostgreSQL and
    MySQL, the write lock in SQLite, so that two consumers that both hold a partition during a rebalance take turns),
    reads their stored next offsets, calls ``write(cursor, records)`` with the records at or past them (a ``retry``
    record below was written by an earlier transaction), stores the new offsets (never lower ones) and commits; a
    failure rolls everything back and raises, and :func:`consume` reads the poll again.

    Args:
        connection: An open DB-API connection, used by this sink alone, from one thread.
        write: Writes the records' output with the cursor it is given; does not commit.
        group: The consumer's group id: offsets are kept per group.
        table: The offsets table, created when missing (``CREATE TABLE IF NOT EXISTS``): ``consumer_group``,
            ``topic``, ``kafka_partition``, ``next_offset``, primary key the first three.
        paramstyle: The driver's ``paramstyle`` (``qmark``, ``format`` or ``pyformat``); ``None``: the one of the
            module the connection comes from.

    Raises:
        ValueError: When ``group`` or ``table`` is not valid, or the driver's paramstyle is none of the three.
    """
    if not isinstance(group, str) or not group or len(group) > 255:
        raise ValueError(f"group: the consumer's group id, 1 to 255 characters, got {group!r}")
    if not isinstance(table, str) or not _TABLE.fullmatch(table):
        raise ValueError(f"table: a table name (letters, digits, _; schema.name), got {table!r}")
    style = paramstyle if paramstyle is not None else _paramstyle(connection)
    if style not in ("qmark", "format", "pyformat"):
        raise ValueError(f"paramstyle: qmark, format or pyformat, got {style!r}; pass the driver's as paramstyle=")
    mark = "?" if style == "qmark" else "%s"
    where_ = f"consumer_group = {mark} AND topic = {mark} AND kafka_partition = {mark}"
    lock = f"UPDATE {table} SET next_offset = next_offset WHERE {where_}"
    select = f"SELECT next_offset FROM {table} WHERE {where_}"
    insert = (
        f"INSERT INTO {table} (consumer_group, topic, kafka_partition, next_offset) VALUES ({mark}, {mark}, {mark},"
        f" {mark})"
    )
    update = f"UPDATE {table} SET next_offset = {mark} WHERE {where_} AND next_offset < {mark}"
    created = [False]

    def sink(records: List[Any], offsets: Dict[TopicPartition, int]) -> None:
        cursor = connection.cursor()
        try:
            if not created[0]:
                cursor.execute(
                    f"CREATE TABLE IF NOT EXISTS {table} (consumer_group VARCHAR(255) NOT NULL, topic VARCHAR(255)"
                    " NOT NULL, kafka_partition INTEGER NOT NULL, next_offset BIGINT NOT NULL, PRIMARY KEY"
                    " (consumer_group, topic, kafka_partition))"
                )
                connection.commit()
                created[0] = True
            # Every lock first, in one order (two consumers lock without a deadlock), then every read: in MySQL's
            # REPEATABLE READ the first read fixes the snapshot. Whether a row exists is the read's to say: MySQL's
            # drivers count rows changed, 0 for this update.
            for tp in sorted(offsets):
                cursor.execute(lock, (group, tp.topic, tp.partition))
            stored: Dict[TopicPartition, Optional[int]] = {}
            for tp in sorted(offsets):
                cursor.execute(select, (group, tp.topic, tp.partition))
                row = cursor.fetchone()
                stored[tp] = int(row[0]) if row else None
            fresh = []
            for r in records:
                tp, offset = where(r)
                at = stored.get(tp)
                if at is None or offset >= at:
                    fresh.append(r)
            write(cursor, fresh)
            for tp, next_offset in sorted(offsets.items()):
                key = (group, tp.topic, tp.partition)
                if stored[tp] is None:
                    cursor.execute(insert, (*key, next_offset))
                elif next_offset > int(stored[tp] or 0):
                    cursor.execute(update, (next_offset, *key, next_offset))
            connection.commit()
        except BaseException:
            connection.rollback()
            raise
        finally:
            cursor.close()

    return sink


def _paramstyle(connection: Any) -> Optional[str]:
    import sys

    module = sys.modules.get(type(connection).__module__.split(".")[0])
    style = getattr(module, "paramstyle", None)
    return style if isinstance(style, str) else None


def consume(
    consumer: Any,
    ns: str,
    sink: Sink,
    *,
    client: Optional[DedupClient] = None,
    id_header: str = ID_HEADER,
    id_of: Optional[Callable[[Any], str]] = None,
    event_time: bool = True,
    max_records: int = 500,
    poll_timeout_ms: int = 1000,
    failure_backoff: float = 1.0,
    max_failure_backoff: float = 30.0,
    on_verdicts: Optional[Callable[[List[Verdict]], None]] = None,
    should_stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Polls ``consumer`` until ``should_stop()``: claims each partition's records, hands those that are not
    duplicates to ``sink`` with the partitions' next offsets, then commits those offsets.

    Args:
        consumer: A ``kafka.KafkaConsumer`` (kafka-python) or a ``confluent_kafka.Consumer``, subscribed or
            assigned, with auto-commit off (``enable_auto_commit=False``, ``"enable.auto.commit": False``).
        ns: The namespace the messages are claimed in.
        sink: Writes a poll's kept records and stores the offsets, in one transaction (:data:`Sink`).
        client: The client of the agent beside this consumer; ``None``: ``DedupClient()``, the agent of
            ``DEDUP_URL`` (default ``http://127.0.0.1:7070``) with ``DEDUP_TOKEN``.
        id_header: The header the producer puts the message id in.
        id_of: A record's message id, when the producer puts it elsewhere (a field of the value); never the
            record key. The owner is always :func:`owner`, so that every worker of a namespace agrees.
        event_time: Send the record's timestamp as its event second (the default): the agent then counts
            each claim's window from it on the namespace's event clock, so a loop that falls behind keeps
            its claims. ``False`` for a namespace whose other workers send none (claims with and without
            event times are kept apart on Redis).
        max_records: Records per poll.
        poll_timeout_ms: How long a poll waits for records.
        failure_backoff: Seconds to wait after the sink failed, or a claim failed without ``Retry-After``; each
            further failure of the sink in a row doubles it, up to ``max_failure_backoff``, so that a sink whose
            database is down is neither called nor its claims released in a tight loop.
        max_failure_backoff: The longest wait after the sink failed many times in a row.
        on_verdicts: Called with each partition's verdicts of a poll, in order, e.g. to count them.
        should_stop: Checked before each poll.
        sleep: How to wait (tests pass a recorder).

    Raises:
        ValueError: When a record has no id (:func:`header`), before any record of its poll reaches the sink.
        DedupError: When the agent rejects a claim (a 4xx: a missing token, a bad namespace): sending it again
            would get the same answer. Nothing of that poll reached the sink.

    A claim the agent did not answer (no connection, a timeout, a 503) or a failed sink is read again, forever: the loop stops only when ``should_stop()`` says so, or
    when the consumer raises. A commit that fails (the group rebalanced) raises out of the loop; whoever
    reads those records next gets ``retry`` for them, and the sink's stored offsets tell it what it wrote.
    """
    adapter = adapt(consumer)
    dedup = client if client is not None else DedupClient()
    read_id: Callable[[Any], str] = id_of if id_of is not None else (lambda r: header(r, id_header))
    sink_failures = 0  # in a row
    while not should_stop():
        polled = adapter.poll(poll_timeout_ms, max_records)
        kept: List[Any] = []
        held: List[Item] = []
        offsets: Dict[TopicPartition, int] = {}
        firsts: List[Polled] = []
        waits: List[float] = []
        batches = [(p, [_item(r, read_id, event_time) for r in p.records]) for p in polled]
        for p, items in batches:
            try:
                verdicts = dedup.claim(ns, items)
            except DedupError as e:
                if e.rejected:  # a 4xx (a missing token, a bad namespace): reading it again gets the same answer
                    raise
                # No verdicts, so nothing may be skipped, nor written twice by accident: read it again.
                log.warning("claim of %s records of %s failed, reading them again: %s", len(items), p.key, e)
                adapter.seek(p, p.first_offset)
                waits.append(e.retry_after if e.retry_after is not None else failure_backoff)
                continue
            if on_verdicts is not None:
                on_verdicts(list(verdicts))
            for record, item, verdict in zip(p.records, items, verdicts):
                if verdict != Verdict.DUPLICATE:
                    kept.append(record)
                    held.append(item)
            offsets[TopicPartition(p.topic, p.partition)] = p.next_offset
            firsts.append(p)
        if offsets:
            try:
                sink(kept, dict(offsets))
            except Exception:  # noqa: BLE001 - any failure of the user's own code
                log.warning("the sink failed on %s records; releasing and reading them again", len(kept), exc_info=True)
                _release(dedup, ns, held)
                for p in firsts:
                    adapter.seek(p, p.first_offset)
                waits.append(min(max_failure_backoff, failure_backoff * 2 ** min(sink_failures, 30)))
                sink_failures += 1
            else:
                sink_failures = 0
                adapter.commit(offsets)
        if waits:
            sleep(max(waits))


def _item(record: Any, read_id: Callable[[Any], str], event_time: bool) -> Item:
    topic, partition, offset, timestamp, _ = fields(record)
    # A record without a timestamp (None, or -1) or from before 1970 is sent without one.
    second = timestamp // 1000 if event_time and timestamp is not None and timestamp >= 1000 else None
    return Item(read_id(record), kafka_owner(topic, partition, offset), second)


def _release(dedup: DedupClient, ns: str, held: Sequence[Item]) -> None:
    if not held:
        return
    try:
        dedup.release(ns, held)
    except DedupError as e:
        # Still claimed by these owners: reading them again answers retry, so nothing is lost.
        log.warning("release failed: %s", e)
