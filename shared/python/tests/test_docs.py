"""The Python snippets of the README and docs/python.md, against the real agent: every one runs here, but for
the lines that need a SparkSession, whose imports and functions run and whose calls of ``dedup_client.spark``
are checked against its signatures (:mod:`snippets`)."""

from __future__ import annotations

import re
import sqlite3
from collections import namedtuple
from pathlib import Path
from typing import List

import pytest

from consumers import Drained, DrainingConsumer, kafka_log
from dedup_client import SequenceRange
from dedup_client.kafka import TopicPartition
from processes import REPO, fresh
from snippets import run_definitions, spark_calls

README = REPO / "shared" / "python" / "README.md"
PYTHON_MD = REPO / "docs" / "python.md"

Record = namedtuple("Record", "headers topic partition offset key")  # as kafka-python's ConsumerRecord has them


def python_blocks(path: Path) -> List[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def block(path: Path, marker: str) -> str:
    (found,) = [b for b in python_blocks(path) if marker in b]
    return found


def run(source: str, agent_url: str, **names: object) -> dict:
    """Runs a snippet with the test's agent as the one its environment names (``DedupClient()``) or it names."""
    scope = dict(names)
    source = source.replace("DedupClient()", f"DedupClient(environ={{'DEDUP_URL': {agent_url!r}}})")
    exec(compile(source.replace("http://127.0.0.1:7070", agent_url), "<doc>", "exec"), scope)
    return scope


#: How each snippet is found; each test below takes one, and every snippet must be taken.
MARKERS = {
    README: ["dedup.claim(", "check_ranges", "from dedup_client.spark", "from dedup_client.kafka"],
    PYTHON_MD: ["dedup.release(", "check_ranges", "from dedup_client.spark", "from dedup_client.kafka"],
}


def test_everySnippet_isTakenByATest() -> None:
    for path, markers in MARKERS.items():
        blocks = python_blocks(path)
        taken = [[m for m in markers if m in b] for b in blocks]
        assert all(len(t) == 1 for t in taken), (path, taken)
        assert len(blocks) == len(markers), path


def test_theReadmesSnippet_keepsWhatIsNotADuplicate(agent) -> None:
    id_ = fresh().encode()
    records = [  # one user's events (the key): two copies of one message, and another message
        Record([("message-id", id_)], "clicks", 3, 81418110694, b"user-7"),
        Record([("trace", b"t1"), ("message-id", id_)], "clicks", 5, 12345, b"user-7"),
        Record([("message-id", fresh().encode())], "clicks", 3, 81418110695, b"user-7"),
    ]
    batch = [namedtuple("R", "id topic partition offset")(dict(r.headers)["message-id"], r.topic, r.partition, r.offset)
             for r in records]  # fmt: skip
    scope = run(block(README, "dedup.claim("), agent.url, batch=batch)
    assert scope["verdicts"] == ["new", "duplicate", "new"]
    assert scope["todo"] == [batch[0], batch[2]]


def test_theClientSectionsSnippet_runs(agent) -> None:
    source = block(PYTHON_MD, "dedup.release(")
    assert "dedup.claim" in source
    run(source, agent.url)  # its own asserts check the verdicts and the release


@pytest.mark.parametrize("path", [README, PYTHON_MD], ids=["README", "python.md"])
def test_theRangesSnippets_processWhatIsNotDone(client, path) -> None:
    Offset = namedtuple("Offset", "offset")
    records = [Offset(n) for n in range(100, 110)]
    stream = "orders-3"
    ns = fresh("orders")[:60]
    client.commit_ranges(ns, stream, [(100, 104)])  # done before a restart
    processed: List[Offset] = []
    source = block(path, "check_ranges").replace('"orders"', repr(ns))
    scope = run(source, client.url, records=records, process=processed.extend, batch=records,
                first_offset=100, last_offset=109, dedup=client, SequenceRange=SequenceRange)  # fmt: skip
    assert scope["todo"] == records[5:]
    assert client.check_ranges(ns, stream, [(100, 110)]) == [[SequenceRange(100, 109)]]


@pytest.mark.parametrize("path", [README, PYTHON_MD], ids=["README", "python.md"])
def test_theSparkSnippets_importAndDefine_andCallTheFunctionsAsTheyAre(path) -> None:
    source = block(path, "from dedup_client.spark")
    scope = run_definitions(source)
    assert callable(scope["write_batch"]) and callable(scope["claim_and_keep"])
    assert sorted(spark_calls(source)) == ["claim_and_keep", "with_verdicts"]


@pytest.mark.parametrize("path", [README, PYTHON_MD], ids=["README", "python.md"])
def test_theConsumerSnippets_writeEachMessageOnce_andStoreTheOffsets(agent, monkeypatch, tmp_path, path) -> None:
    monkeypatch.setenv("DEDUP_URL", agent.url)
    ids = [fresh("msg") for _ in range(6)]
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    consumer = DrainingConsumer({p0: kafka_log(0, ids[:4]), p1: kafka_log(1, ids[2:])}, seek_raises=True)
    source = block(path, "from dedup_client.kafka").replace("from kafka import KafkaConsumer\n", "")
    db = sqlite3.connect(tmp_path / "clicks.db")
    db.executescript("""CREATE TABLE IF NOT EXISTS clicks (user BLOB, value BLOB);
        CREATE TABLE IF NOT EXISTS offsets (topic TEXT, part INT, next INT, PRIMARY KEY (topic, part))""")
    with db:
        db.execute("INSERT INTO offsets VALUES ('clicks', 0, 1)")  # offset 0 was written before a crash
    names = {"KafkaConsumer": lambda *a, **k: consumer, "consumer": consumer, "db": db}
    source = source.replace('sqlite3.connect("clicks.db")', repr(str(tmp_path / "clicks.db")).join(["sqlite3.connect(", ")"]))

    with pytest.raises(Drained):
        run(source, agent.url, **names)

    assert db.execute("SELECT count(*) FROM clicks").fetchone() == (5,)  # 6 ids, one written before
    assert dict(((t, p), n) for t, p, n in db.execute("SELECT * FROM offsets")) == {("clicks", 0): 4, ("clicks", 1): 4}
    assert consumer.committed == {p0: 4, p1: 4}
