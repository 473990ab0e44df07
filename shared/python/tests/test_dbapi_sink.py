"""``dedup_client.kafka.dbapi_sink`` on SQLite (the standard library's ``sqlite3``): a poll read again writes
nothing twice, an overlapping one only its new records, a failing writer rolls back rows and offsets, groups keep
their offsets apart, offsets never go back, and two consumers writing one partition at once apply each record
once."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

from consumers import Record, kafka_log
from dedup_client.kafka import TopicPartition, dbapi_sink, where

P0, P1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)


def records(partition: int, first: int, last: int) -> List[Record]:
    """Records of ``clicks``/``partition`` at offsets ``first`` to ``last - 1``."""
    return kafka_log(partition, [f"m-{partition}-{o}" for o in range(last)])[first:last]


def database(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(str(path), timeout=20)
    db.execute("CREATE TABLE IF NOT EXISTS applied (topic TEXT, part INT, off INT)")
    db.commit()
    return db


def writer(cursor: Any, rs: List[Record]) -> None:
    cursor.executemany("INSERT INTO applied VALUES (?, ?, ?)", [(r.topic, r.partition, r.offset) for r in rs])


def count(db: sqlite3.Connection, where_: str = "") -> int:
    return int(db.execute("SELECT count(*) FROM applied" + where_).fetchone()[0])


def stored(db: sqlite3.Connection, group: str = "g") -> Dict[TopicPartition, int]:
    rows = db.execute("SELECT topic, kafka_partition, next_offset FROM stream_offsets WHERE consumer_group = ?", (group,))
    return {TopicPartition(t, p): n for t, p, n in rows}


def test_aPollReadAgainWritesNothingTwice_andAnOverlappingOneOnlyItsNewRecords(tmp_path: Path) -> None:
    db = database(tmp_path / "again.db")
    sink = dbapi_sink(db, writer, group="g")
    sink(records(0, 0, 10) + records(1, 0, 4), {P0: 10, P1: 4})
    assert count(db) == 14
    sink(records(0, 0, 10) + records(1, 0, 4), {P0: 10, P1: 4})  # read again after a crash before the commit
    assert count(db) == 14
    sink(records(0, 5, 15), {P0: 15})
    assert count(db) == 19 and count(db, " WHERE part = 0") == 15
    sink([], {P1: 9})  # a poll of duplicates alone still moves the offsets
    sink([], {P1: 7})  # never backwards
    assert stored(db) == {P0: 15, P1: 9}


def test_aFailingWriterRollsBackRowsAndOffsets_andGroupsKeepTheirOffsetsApart(tmp_path: Path) -> None:
    db = database(tmp_path / "failing.db")
    dbapi_sink(db, writer, group="g")(records(0, 0, 3), {P0: 3})

    def failing(cursor: Any, rs: List[Record]) -> None:
        writer(cursor, rs)
        raise RuntimeError("the writer failed (injected)")

    with pytest.raises(RuntimeError, match="injected"):
        dbapi_sink(db, failing, group="g")(records(0, 3, 6), {P0: 6})
    assert count(db) == 3 and stored(db) == {P0: 3}
    dbapi_sink(db, writer, group="other")(records(0, 0, 3), {P0: 3})
    assert count(db) == 6 and stored(db, "other") == {P0: 3}


def test_twoConsumersWritingOnePartitionAtOnceApplyEachRecordOnce(tmp_path: Path) -> None:
    path = tmp_path / "zombie.db"
    dbapi_sink(database(path), writer, group="g")(records(0, 0, 1), {P0: 1})
    inside = threading.Event()

    def slow(cursor: Any, rs: List[Record]) -> None:
        writer(cursor, rs)
        inside.set()
        time.sleep(0.3)  # holds the lock while the other one tries

    first = threading.Thread(target=lambda: dbapi_sink(database(path), slow, group="g")(records(0, 1, 20), {P0: 20}))
    first.start()
    inside.wait(10)
    dbapi_sink(database(path), writer, group="g")(records(0, 1, 20), {P0: 20})
    first.join(10)
    db = database(path)
    assert count(db) == 20 and int(db.execute("SELECT count(DISTINCT off) FROM applied").fetchone()[0]) == 20


def test_settingsAreChecked_namingThem(tmp_path: Path) -> None:
    db = database(tmp_path / "settings.db")
    with pytest.raises(ValueError, match="^group: "):
        dbapi_sink(db, writer, group="")
    with pytest.raises(ValueError, match="^table: "):
        dbapi_sink(db, writer, group="g", table="offsets; DROP TABLE applied")
    with pytest.raises(ValueError, match="^paramstyle: qmark, format or pyformat, got 'named'"):
        dbapi_sink(db, writer, group="g", paramstyle="named")
    assert where(records(1, 2, 3)[0]) == (P1, 2)
