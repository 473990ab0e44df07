"""A consumer job that counts clicks per user in SQLite, each message once: what a user of
``dedup_client.kafka`` writes.

    python3 clicks_consumer.py BOOTSTRAP TOPIC GROUP DB   (kafka-python: Debian's python3-kafka)

The agent is the one beside the consumer, ``DEDUP_URL`` and ``DEDUP_TOKEN``. Each poll's kept records and the
partitions' next offsets go into SQLite in one transaction; a record below its partition's stored offset was
counted before (read again after a crash between that transaction and the offset commit) and is left alone,
and a stored offset is never lowered.
SIGTERM stops the loop after the poll at hand.
"""

from __future__ import annotations

import signal
import sqlite3
import sys
from typing import Any, Dict, List

from dedup_client.kafka import TopicPartition, consume

SCHEMA = """
CREATE TABLE IF NOT EXISTS clicks (user TEXT PRIMARY KEY, n INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS offsets (topic TEXT, part INTEGER, next INTEGER, PRIMARY KEY (topic, part));
"""


class ClickCounts:
    """The sink: the counts and the offsets, in one transaction per poll."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)
        self.db.executescript(SCHEMA)

    def __call__(self, records: List[Any], offsets: Dict[TopicPartition, int]) -> None:
        with self.db:  # one transaction: commits, or rolls back if anything raises
            stored = {TopicPartition(t, p): n for t, p, n in self.db.execute("SELECT * FROM offsets")}
            for r in records:
                if r.offset >= stored.get(TopicPartition(r.topic, r.partition), 0):
                    self.db.execute(
                        "INSERT INTO clicks VALUES (?, 1) ON CONFLICT (user) DO UPDATE SET n = n + 1",
                        (r.key.decode(),),
                    )
            # Never lowered: a poll of records read again after a crash ends below what was stored.
            self.db.executemany(
                "INSERT INTO offsets VALUES (?, ?, ?)"
                " ON CONFLICT (topic, part) DO UPDATE SET next = MAX(next, excluded.next)",
                [(*tp, n) for tp, n in offsets.items()],
            )


def main(bootstrap: str, topic: str, group: str, db: str) -> None:
    from kafka import KafkaConsumer

    consumer = KafkaConsumer(
        topic, bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False, auto_offset_reset="earliest"
    )
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    try:
        consume(consumer, "clicks", ClickCounts(db), should_stop=lambda: bool(stopping))
    finally:
        consumer.close(autocommit=False)


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
