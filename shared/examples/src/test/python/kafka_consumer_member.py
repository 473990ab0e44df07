"""One member of a consumer group for PythonConsumerPipelineIT: the client's loop (``dedup_client.kafka.consume``)
with kafka-python's real ``KafkaConsumer`` or confluent-kafka's real ``Consumer``, writing to a transactional
SQLite sink, plus the faults the test asks for. Run by the test with Debian's /usr/bin/python3 (python3-kafka,
python3-confluent-kafka), ``shared/python/src`` on ``PYTHONPATH``.

    kafka_consumer_member.py run BOOTSTRAP TOPIC GROUP AGENT_URL DB NAMESPACE [client=kafka-python|confluent-kafka]
                                 [fail=N] [pauseBeforeCommit=K]
    kafka_consumer_member.py dump DB

The sink applies each poll's kept records in one SQLite transaction: the per-minute counts and sums per app
(``event_counts``), the number of times each id was applied (``audit``, the test's ground truth check) and
each partition's next offset (``sink_offsets``), as the loop hands them over, never lowered. A record below its
partition's stored next offset was applied before: it is read again after a crash between the sink's transaction and the
offset commit (its claim answers ``retry``), and left alone.

Faults: ``fail=N`` makes the sink fail once, after a record's writes and before the transaction's commit
(rolled back), for each id whose CRC-32 is a multiple of N. ``pauseBeforeCommit=K`` prints ``PAUSED`` before
the K-th offset commit and waits to be killed (``kill -9``).

Printed, one line each, for the test to count: ``VERDICTS new=.. retry=.. duplicate=..`` per claim,
``RELEASED n`` per release, ``FAILED id`` per injected failure, ``REDELIVERED id verdict`` when an id whose
processing failed is applied again (with the verdict its claim got then), ``SKIPPED topic:partition:offset`` for a
record the sink had applied already. ``dump`` prints the sink: ``AUDIT id times``, ``COUNT app minute events amount``,
``OFFSET partition next``.
"""

from __future__ import annotations

import signal
import sqlite3
import sys
import time
import zlib
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from dedup_client import DedupClient, Verdict
from dedup_client._wire import ItemLike
from dedup_client.kafka import ID_HEADER, TopicPartition, consume, header, owner

SCHEMA = """
CREATE TABLE IF NOT EXISTS event_counts (
    app TEXT NOT NULL, minute INTEGER NOT NULL, events INTEGER NOT NULL, amount INTEGER NOT NULL,
    PRIMARY KEY (app, minute));
CREATE TABLE IF NOT EXISTS audit (id TEXT PRIMARY KEY, times INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS sink_offsets (
    topic TEXT NOT NULL, kafka_partition INTEGER NOT NULL, next_offset INTEGER NOT NULL,
    PRIMARY KEY (topic, kafka_partition));
"""


def say(line: str) -> None:
    print(line, flush=True)


def value(record: Any) -> bytes:
    """The record's value: an attribute of kafka-python's records, a method of confluent-kafka's."""
    return record.value() if callable(record.value) else record.value


def position(record: Any) -> Tuple[TopicPartition, int]:
    """The record's partition and offset, from either library's record."""
    if callable(record.topic):
        return TopicPartition(record.topic(), record.partition()), record.offset()
    return TopicPartition(record.topic, record.partition), record.offset


class Sink:
    """The output and the next offset per partition, in one SQLite transaction per poll."""

    def __init__(self, path: str) -> None:
        # isolation_level=None: the transactions are the explicit BEGIN IMMEDIATE / COMMIT below.
        self.db = sqlite3.connect(path, isolation_level=None, timeout=30)
        # Two members open the file at once. Switching it to WAL and creating the tables take a lock that
        # SQLite refuses at once ("database is locked"), without waiting out the timeout, when it would
        # have to upgrade a lock the other connection also holds: try again until the timeout.
        deadline = time.monotonic() + 30
        while True:
            try:
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.executescript(SCHEMA)
                break
            except sqlite3.OperationalError as e:
                if "locked" not in str(e) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def write(self, records: List[Any], offsets: Dict[TopicPartition, int], fails: Callable[[Any], bool]) -> None:
        """Applies each record not below its partition's stored next offset, then stores ``offsets`` where they
        are past it (a poll of records read again after a crash ends below it); when ``fails(record)``, raises
        after that record's writes, before the commit."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            stored = {
                TopicPartition(topic, partition): next_offset
                for topic, partition, next_offset in db.execute(
                    "SELECT topic, kafka_partition, next_offset FROM sink_offsets"
                )
            }
            for record in records:
                tp, offset = position(record)
                if offset < stored.get(tp, 0):
                    say(f"SKIPPED {owner(record)}")
                    continue
                self.apply(record)
                if fails(record):
                    raise RuntimeError("processing failed (injected)")
            db.executemany(
                "INSERT INTO sink_offsets (topic, kafka_partition, next_offset) VALUES (?, ?, ?)"
                " ON CONFLICT (topic, kafka_partition) DO UPDATE SET next_offset = MAX(next_offset, excluded.next_offset)",
                [(tp.topic, tp.partition, next_offset) for tp, next_offset in offsets.items()],
            )
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def apply(self, record: Any) -> None:
        app, event_millis, amount = value(record).decode("utf-8").split(",", 2)
        minute = int(event_millis) - int(event_millis) % 60_000
        self.db.execute(
            "INSERT INTO event_counts (app, minute, events, amount) VALUES (?, ?, 1, ?)"
            " ON CONFLICT (app, minute) DO UPDATE SET events = events + 1, amount = amount + excluded.amount",
            (app, minute, int(amount)),
        )
        self.db.execute(
            "INSERT INTO audit (id, times) VALUES (?, 1) ON CONFLICT (id) DO UPDATE SET times = times + 1",
            (header(record, ID_HEADER),),
        )

    def dump(self) -> None:
        for id_, times in self.db.execute("SELECT id, times FROM audit ORDER BY id"):
            say(f"AUDIT {id_} {times}")
        for app, minute, events, amount in self.db.execute("SELECT app, minute, events, amount FROM event_counts"):
            say(f"COUNT {app} {minute} {events} {amount}")
        for partition, next_offset in self.db.execute("SELECT kafka_partition, next_offset FROM sink_offsets"):
            say(f"OFFSET {partition} {next_offset}")


class CountingClient(DedupClient):
    """The real client; prints each claim's verdict counts and each release's count, and keeps the last
    verdict per owner (for ``REDELIVERED``)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.verdict_of: Dict[str, Verdict] = {}

    def claim(self, ns: Optional[str], items: Iterable[ItemLike]) -> List[Verdict]:
        items = list(items)
        verdicts = super().claim(ns, items)
        for item, verdict in zip(items, verdicts):
            self.verdict_of[item[1]] = verdict
        say(
            f"VERDICTS new={verdicts.count(Verdict.NEW)} retry={verdicts.count(Verdict.RETRY)}"
            f" duplicate={verdicts.count(Verdict.DUPLICATE)}"
        )
        return verdicts

    def release(self, ns: Optional[str], items: Iterable[ItemLike]) -> List[bool]:
        released = super().release(ns, list(items))
        say(f"RELEASED {sum(released)}")
        return released


def pausing(base: type, pause_at: int) -> type:
    """``base`` (either library's consumer class) whose ``pause_at``-th commit waits to be killed instead."""

    class Pausing(base):  # type: ignore[misc, valid-type]
        commits = 0

        def commit(self, *args: Any, **kwargs: Any) -> Any:
            self.commits += 1
            if self.commits == pause_at:
                say(f"PAUSED before commit {self.commits}")
                while True:
                    time.sleep(3600)  # until kill -9
            return super().commit(*args, **kwargs)

    return Pausing


def open_consumer(client: str, bootstrap: str, topic: str, group: str, pause_at: int) -> Any:
    """The real consumer of ``client``'s library, auto-commit off, reading from the start of a new group."""
    if client == "kafka-python":
        from kafka import KafkaConsumer

        return pausing(KafkaConsumer, pause_at)(
            topic,
            bootstrap_servers=bootstrap,
            group_id=group,
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=6_000,
            heartbeat_interval_ms=1_000,
        )
    if client == "confluent-kafka":
        from confluent_kafka import Consumer

        consumer = pausing(Consumer, pause_at)(
            {
                "bootstrap.servers": bootstrap,
                "group.id": group,
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "session.timeout.ms": 6_000,
                "heartbeat.interval.ms": 1_000,
            }
        )
        consumer.subscribe([topic])
        return consumer
    raise SystemExit(f"client={client}: kafka-python or confluent-kafka")


def close(consumer: Any) -> None:
    if callable(getattr(consumer, "consume", None)):
        consumer.close()  # confluent-kafka: auto-commit is off, so it commits nothing
    else:
        consumer.close(autocommit=False)


def run(args: List[str]) -> None:
    bootstrap, topic, group, agent_url, db_path, ns = args[:6]
    options = dict(a.split("=", 1) for a in args[6:])
    client = options.get("client", "kafka-python")
    fail_every = int(options.get("fail", 0))
    pause_at = int(options.get("pauseBeforeCommit", -1))

    sink = Sink(db_path)
    dedup = CountingClient(agent_url)
    failed: set = set()

    def fails(record: Any) -> bool:
        id_ = header(record, ID_HEADER)  # the producer's id; the key is an app
        if id_ in failed:
            say(f"REDELIVERED {id_} {dedup.verdict_of[owner(record)]}")
            return False
        if fail_every > 0 and zlib.crc32(id_.encode("utf-8")) % fail_every == 0:
            failed.add(id_)
            say(f"FAILED {id_}")
            return True
        return False

    stopping = False

    def stop(signum: int, frame: Any) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    consumer = open_consumer(client, bootstrap, topic, group, pause_at)
    say(f"STARTED {client}")
    try:
        consume(
            consumer,
            ns,
            lambda records, offsets: sink.write(records, offsets, fails),
            client=dedup,
            max_records=200,
            poll_timeout_ms=200,
            failure_backoff=0.2,
            max_failure_backoff=0.2,  # the test fails many polls in a row on purpose
            should_stop=lambda: stopping,
        )
    finally:
        close(consumer)
        dedup.close()
    say("STOPPED")


def main() -> None:
    if len(sys.argv) >= 8 and sys.argv[1] == "run":
        run(sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "dump":
        Sink(sys.argv[2]).dump()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
