"""The Python snippets of the README and docs/python.md run as written, against the real agent."""

from __future__ import annotations

import re
from collections import namedtuple
from pathlib import Path
from typing import List

from dedup_client import SequenceRange
from processes import REPO, fresh

Record = namedtuple("Record", "headers topic partition offset key")  # as kafka-python's ConsumerRecord has them


def python_blocks(path: Path) -> List[str]:
    return re.findall(r"```python\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def run(source: str, agent_url: str, **names: object) -> dict:
    """Runs a snippet with the test's agent as the one its environment names (``DedupClient()``) or it names."""
    scope = dict(names)
    source = source.replace("DedupClient()", f"DedupClient(environ={{'DEDUP_URL': {agent_url!r}}})")
    exec(compile(source.replace("http://127.0.0.1:7070", agent_url), "<doc>", "exec"), scope)
    return scope


def test_theReadmesSnippet_keepsWhatIsNotADuplicate(agent) -> None:
    (block,) = [b for b in python_blocks(REPO / "README.md") if "dedup_client" in b]
    id_ = fresh().encode()
    records = [  # one user's events (the key): two copies of one message, and another message
        Record([("message-id", id_)], "clicks", 3, 81418110694, b"user-7"),
        Record([("trace", b"t1"), ("message-id", id_)], "clicks", 5, 12345, b"user-7"),
        Record([("message-id", fresh().encode())], "clicks", 3, 81418110695, b"user-7"),
    ]
    scope = run(block, agent.url, records=records)
    assert scope["verdicts"] == ["new", "duplicate", "new"]
    assert scope["todo"] == [records[0], records[2]]
    assert [item.owner for item in scope["batch"]] == ["clicks:3:81418110694", "clicks:5:12345", "clicks:3:81418110695"]


def test_theClientSectionsSnippet_runs(agent) -> None:
    block = python_blocks(REPO / "docs" / "python.md")[0]
    assert "dedup.claim" in block and "dedup.release" in block
    run(block, agent.url)  # its own asserts check the verdicts and the release


def test_theRangesSectionsSnippet_processesWhatIsNotDone(client) -> None:
    (block,) = [b for b in python_blocks(REPO / "docs" / "python.md") if "check_ranges" in b]
    Offset = namedtuple("Offset", "offset")
    records = [Offset(n) for n in range(100, 110)]
    stream = "orders-3"
    client.commit_ranges("orders", stream, [(100, 104)])  # done before a restart
    processed: List[Offset] = []
    scope = run(block, client.url, records=records, process=processed.extend)
    assert scope["todo"] == processed == records[5:]
    assert client.check_ranges("orders", stream, [(100, 110)]) == [[SequenceRange(100, 109)]]
