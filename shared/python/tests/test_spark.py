"""``dedup_client.spark`` without PySpark, which cannot be installed here (no Python package index; Debian does
not package it).

- The partition functions over plain iterators, as ``RDD.mapPartitions`` calls them, against the real agent.
- The DataFrame layer's own logic, which is pure Python: the column checks on a schema given as
  ``{column: Spark type}`` (the ``simpleString()`` of each field, as the driver reads it), and the rows it
  claims and assembles, as ``Row`` below (a tuple whose values are read by name too, as ``pyspark.sql.Row``'s
  are). The lines that call PySpark (``df.rdd.mapPartitions``, ``createDataFrame``) are not run.
"""

from __future__ import annotations

import datetime
import itertools
import pickle
import threading
from collections import Counter
from functools import partial
from typing import List

import pytest

from dedup_client import DedupError, kafka_owner
from dedup_client._columns import RowClaims
from dedup_client.spark import (
    KafkaColumns,
    KinesisColumns,
    claim_partition,
    dedup_partition,
    claim_and_keep,
    verdict_rows,
    with_verdicts,
)
from processes import AgentProcess, free_port, fresh

KAFKA_SCHEMA = {
    "key": "binary",
    "value": "binary",
    "topic": "string",
    "partition": "int",
    "offset": "bigint",
    "timestamp": "timestamp",
    "timestampType": "int",
    "headers": "array<struct<key:string,value:binary>>",
}
KINESIS_SCHEMA = {
    "data": "binary",
    "stream": "string",
    "shardId": "string",
    "sequenceNumber": "string",
    "approximateArrivalTimestamp": "timestamp",
}


class Row(tuple):
    """A row as ``pyspark.sql.Row`` is one: a tuple of values in the schema's order, read by name too."""

    def __new__(cls, **values: object) -> Row:
        row = super().__new__(cls, values.values())
        row.names = list(values)
        return row

    def __getitem__(self, key):  # type: ignore[override]
        return super().__getitem__(self.names.index(key) if isinstance(key, str) else key)


def kafka_rows(partition: int, ids: List[str], topic: str = "clicks") -> List[Row]:
    """Rows as Spark's Kafka source read with includeHeaders gives them: the id in the message-id header
    (a bytearray, as Spark's binary comes to Python), the key a user shared by many messages."""
    return [
        Row(
            key=b"user-7",
            value=f"v-{i}".encode(),
            topic=topic,
            partition=partition,
            offset=offset,
            timestamp=datetime.datetime.fromtimestamp(1_767_225_600 + offset),
            timestampType=0,
            headers=[("trace", bytearray(b"t")), ("message-id", bytearray(i.encode()))],
        )
        for offset, i in enumerate(ids)
    ]


def message_id(row) -> str:
    return dict(row["headers"])["message-id"].decode()


def partition_fn(agent_url: str, **kwargs) -> partial:
    """``dedup_partition`` as a hand-written ``mapPartitions`` job gives it."""
    return partial(
        dedup_partition,
        url=agent_url,
        ns="py-spark",
        id_of=message_id,
        owner_of=lambda row: kafka_owner(row["topic"], row["partition"], row["offset"]),
        **kwargs,
    )


# --- the partition functions -----------------------------------------------------------------------


def test_copiesInTwoPartitions_areKeptOnce_andOneKeyIsNotOneMessage(agent) -> None:
    ids = [fresh("msg") for _ in range(30)]
    p0 = kafka_rows(0, ids[:20])
    p1 = kafka_rows(1, ids[10:])  # ids[10:20] were written twice; every row has the same key
    fn = partition_fn(agent.url, chunk_size=7)

    out = list(fn(iter(p0))) + list(fn(iter(p1)))

    assert Counter(message_id(r) for r in out) == Counter(ids)
    assert out[:20] == p0 and out[20:] == p1[10:]


def test_aRetriedTask_keepsItsRowsAgain_andTheOtherCopyStaysDropped(agent) -> None:
    ids = [fresh("msg") for _ in range(10)]
    p0, p1 = kafka_rows(0, ids), kafka_rows(1, ids)
    fn = partition_fn(agent.url)

    first = list(itertools.islice(fn(iter(p0)), 4))  # the task dies after 4 rows...
    again = list(fn(iter(p0)))  # ...and Spark runs it again: its claims answer retry
    copies = list(fn(iter(p1)))

    assert first == p0[:4] and again == p0
    assert copies == []


def test_claimPartition_yieldsEveryRowWithItsVerdict_chunkByChunk(agent) -> None:
    ids = [fresh("msg") for _ in range(5)]
    rows = kafka_rows(0, ids) + kafka_rows(1, ids[:2])
    chunks: List[List[str]] = []

    out = list(
        claim_partition(
            iter(rows),
            url=agent.url,
            ns="py-spark",
            id_of=message_id,
            owner_of=lambda row: kafka_owner(row["topic"], row["partition"], row["offset"]),
            chunk_size=3,
            on_verdicts=chunks.append,
        )
    )

    assert [r for r, _ in out] == rows
    assert [v for _, v in out] == ["new"] * 5 + ["duplicate"] * 2
    assert [len(c) for c in chunks] == [3, 3, 1]
    assert list(claim_partition(iter([]), url=agent.url, ns="py-spark", id_of=str, owner_of=str)) == []


def test_anAgentThatCannotDecide_failsTheTask_oncePatienceIsSpent() -> None:
    fn = partition_fn(f"http://127.0.0.1:{free_port()}", patience=0.3)
    with pytest.raises(DedupError) as caught:
        list(fn(iter(kafka_rows(0, ["a", "b"]))))
    assert caught.value.error == DedupError.UNREACHABLE


def test_anAgentThatStartsLate_isWaitedFor_withTheSameItems(tmp_path, processes) -> None:
    port = free_port()
    rows = kafka_rows(0, [fresh("msg") for _ in range(3)])
    out: List[object] = []
    task = threading.Thread(target=lambda: out.extend(partition_fn(f"http://127.0.0.1:{port}", patience=60)(iter(rows))))
    task.start()
    try:
        processes.append(AgentProcess(tmp_path / "late").start(port=port))  # the sidecar restarting
    finally:
        task.join(60)
    assert out == rows


def test_aRejectedChunk_failsTheTaskAtOnce(agent) -> None:
    fn = partition_fn(agent.url, patience=60)
    rows = [r for r in kafka_rows(0, [fresh("x") * 20])]  # an id over the contract's 512 bytes: a 400
    with pytest.raises(DedupError) as caught:
        list(fn(iter(rows)))
    assert caught.value.rejected


def test_theClientIsKeptPerProcess_acrossTasks(agent) -> None:
    from dedup_client import spark

    fn = partition_fn(agent.url)
    list(fn(iter(kafka_rows(0, [fresh()]))))
    list(fn(iter(kafka_rows(0, [fresh()]))))
    assert sum(1 for key in spark._clients if key[0] == agent.url) == 1


# --- the DataFrame layer: columns ------------------------------------------------------------------


def test_theDefaults_readKafkasHeadersAndOwnerColumns() -> None:
    spec = RowClaims.of()
    spec.check(KAFKA_SCHEMA, "dedup_verdict")
    (row,) = kafka_rows(3, ["ce059644"])
    assert (spec.id_of(row), spec.owner_of(row)) == ("ce059644", "clicks:3:0")


def test_aMissingColumn_isNamed_withTheSettingThatNamesIt() -> None:
    without_headers = {k: v for k, v in KAFKA_SCHEMA.items() if k != "headers"}
    with pytest.raises(ValueError, match=r"^KafkaColumns.headers: the DataFrame has no column 'headers' \(read Kafka"
                       r' with option\("includeHeaders", "true"\), or give id_col\); its columns: key, value,'):
        RowClaims.of().check(without_headers)
    with pytest.raises(ValueError, match="^id_col: the DataFrame has no column 'event_id'"):
        RowClaims.of(id_col="event_id").check(KAFKA_SCHEMA)
    with pytest.raises(ValueError, match="^KinesisColumns.shard: the DataFrame has no column 'shard'"):
        RowClaims.of(id_col="data", owner=KinesisColumns(shard="shard")).check(KINESIS_SCHEMA)
    with pytest.raises(ValueError, match="^id_header \\(the headers column\\): the DataFrame has no column 'headers'"):
        RowClaims.of(owner="kinesis").check(KINESIS_SCHEMA)
    with pytest.raises(ValueError, match="^event_time_col: the DataFrame has no column 'ts'"):
        RowClaims.of(event_time_col="ts").check(KAFKA_SCHEMA)
    with pytest.raises(ValueError, match="^owner_col: the DataFrame has no column 'owner'"):
        RowClaims.of(owner_col="owner").check(KAFKA_SCHEMA)
    with pytest.raises(ValueError, match="^verdict_col: the DataFrame has a column 'value' already"):
        RowClaims.of().check(KAFKA_SCHEMA, "value")


def test_aColumnOfTheWrongType_isNamedWithItsType() -> None:
    with pytest.raises(ValueError, match="^id_col: 'timestamp' is timestamp; an id is a string, binary or integer"):
        RowClaims.of(id_col="timestamp").check(KAFKA_SCHEMA)
    with pytest.raises(ValueError, match="^'headers' is string, not Kafka's headers"):
        RowClaims.of().check({**KAFKA_SCHEMA, "headers": "string"})
    with pytest.raises(ValueError, match="^event_time_col: 'value' is binary"):
        RowClaims.of(event_time_col="value").check(KAFKA_SCHEMA)
    with pytest.raises(ValueError, match="^owner_col: 'offset' is bigint, not a string"):
        RowClaims.of(owner_col="offset").check(KAFKA_SCHEMA)


def test_badSettings_areNamed_beforeAnyDataFrameIsTouched() -> None:
    with pytest.raises(ValueError, match="^owner: must be 'kafka', 'kinesis'"):
        claim_and_keep(None, "clicks", owner="sqs")
    with pytest.raises(ValueError, match="^id_header, id_col: one must name where the message id is"):
        claim_and_keep(None, "clicks", id_header=None)
    with pytest.raises(ValueError, match="^chunk_size: must be a whole number >= 1, got 0"):
        claim_and_keep(None, "clicks", chunk_size=0)
    with pytest.raises(ValueError, match="^patience: must be seconds >= 0"):
        claim_and_keep(None, "clicks", patience=-1)
    with pytest.raises(ValueError, match="^url: 'localhost:7070' is not an http"):
        with_verdicts(None, "clicks", url="localhost:7070")
    with pytest.raises(ValueError, match="^verdict_col: must be a non-empty str"):
        with_verdicts(None, "clicks", verdict_col="")


def test_otherColumns_kinesis_anIdColumn_anOwnerColumn_andEventTime() -> None:
    spec = RowClaims.of(id_col="event_id", owner="kinesis", event_time_col="approximateArrivalTimestamp")
    schema = {**KINESIS_SCHEMA, "event_id": "binary"}
    spec.check(schema)
    when = datetime.datetime(2026, 1, 1, 0, 0, 7)  # Spark's local, zone-less datetime
    row = Row(data=b"d", stream="orders", shardId="shardId-000000000003", sequenceNumber="4959" + "0" * 52,
              approximateArrivalTimestamp=when, event_id=bytearray(b"\x01\x02"))  # fmt: skip
    assert spec.id_of(row) == b"\x01\x02"
    assert spec.owner_of(row) == "orders:shardId-000000000003:4959" + "0" * 52
    assert spec.ts_of(row) == int(when.timestamp())

    renamed = RowClaims.of(id_col="seq_id", owner=KinesisColumns(stream="s", shard="sh", sequence="n", sub_sequence="sub"))
    renamed.check({"s": "string", "sh": "string", "n": "string", "sub": "bigint", "seq_id": "bigint"})
    row = Row(s="orders", sh="shardId-000000000001", n="17", sub=2, seq_id=42)
    assert (renamed.id_of(row), renamed.owner_of(row)) == ("42", "orders:shardId-000000000001:17:2")

    owned = RowClaims.of(owner_col="owner", event_time_col="second")
    owned.check({**KAFKA_SCHEMA, "owner": "string", "second": "bigint"})
    row = Row(owner="clicks:0:5", second=1_767_225_600, headers=[("message-id", bytearray(b"m"))])
    assert (owned.id_of(row), owned.owner_of(row), owned.ts_of(row)) == ("m", "clicks:0:5", 1_767_225_600)

    kafka = RowClaims.of(owner=KafkaColumns(topic="t", partition="p", offset="o", headers="h"))
    kafka.check({"t": "string", "p": "int", "o": "bigint", "h": KAFKA_SCHEMA["headers"]})
    assert kafka.owner_of(Row(t="clicks", p=1, o=2, h=[])) == "clicks:1:2"


def test_aRowWithoutItsId_saysWhereItWasRead() -> None:
    (row,) = kafka_rows(3, ["x"])
    no_header = Row(**{**dict(zip(row.names, row)), "headers": [("message-id", bytearray())]})
    with pytest.raises(ValueError, match="^the row at clicks:3:0 has no \\(or an empty\\) header message-id: "):
        RowClaims.of().id_of(no_header)
    null_headers = Row(**{**dict(zip(row.names, row)), "headers": None})
    with pytest.raises(ValueError, match="clicks:3:0 has no"):
        RowClaims.of().id_of(null_headers)
    with pytest.raises(ValueError, match="^the row at clicks:3:0 has no \\(or an empty\\) 'value'"):
        RowClaims.of(id_col="value").id_of(Row(**{**dict(zip(row.names, row)), "value": None}))
    twice = Row(**{**dict(zip(row.names, row)), "headers": [("message-id", b"a"), ("message-id", b"b")]})
    assert RowClaims.of().id_of(twice) == "b"  # the last, as Java's lastHeader takes it


def test_theSpec_travelsToExecutors() -> None:
    spec = RowClaims.of(owner=KinesisColumns(sub_sequence="sub"), id_col="id", event_time_col="t")
    assert pickle.loads(pickle.dumps(spec)) == spec
    (row,) = kafka_rows(0, ["p"])
    assert pickle.loads(pickle.dumps(RowClaims.of().owner_of))(row) == "clicks:0:0"


# --- the DataFrame layer: rows ---------------------------------------------------------------------


def test_verdictRows_keepEveryValue_andAddTheVerdictsString(agent) -> None:
    ids = [fresh("msg") for _ in range(3)]
    spec = RowClaims.of(event_time_col="timestamp")
    rows = kafka_rows(0, ids) + kafka_rows(1, ids[:1])

    out = list(verdict_rows(iter(rows), url=agent.url, ns="py-spark", id_of=spec.id_of, owner_of=spec.owner_of,
                            ts_of=spec.ts_of))  # fmt: skip

    assert [r[:-1] for r in out] == [tuple(r) for r in rows]
    assert [r[-1] for r in out] == ["new", "new", "new", "duplicate"]
    assert all(type(r[-1]) is str for r in out)  # StringType takes a str, not the Verdict enum
    assert list(verdict_rows(iter(rows[:1]), url=agent.url, ns="py-spark", id_of=spec.id_of,
                             owner_of=spec.owner_of))[0][-1] == "retry"  # fmt: skip


def test_theKeywordsTheDataFrameFunctionsShip_claimAsTheyShould(agent) -> None:
    from dedup_client.spark import _claiming

    counted: List[str] = []
    claiming = _claiming(RowClaims.of(), "py-spark", 2, agent.url, None, 5.0, 60.0, counted.extend)
    ids = [fresh("msg") for _ in range(3)]
    rows = kafka_rows(0, ids) + kafka_rows(1, ids)

    kept = list(pickle.loads(pickle.dumps(partial(dedup_partition, **claiming)))(iter(rows)))

    assert kept == rows[:3] and claiming["ts_of"] is None
    assert counted == []  # the unpickled copy counted, as an executor's copy does; accumulators carry it back
    assert list(partial(dedup_partition, **claiming)(iter(rows[:1]))) == rows[:1] and counted == ["retry"]


def test_importingTheModule_needsNoPySpark() -> None:
    import subprocess
    import sys

    from processes import REPO

    code = "import sys, dedup_client, dedup_client.spark, dedup_client.kafka; print('pyspark' in sys.modules)"
    env = {"PYTHONPATH": str(REPO / "shared" / "python" / "src")}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert done.stdout == "False\n"
