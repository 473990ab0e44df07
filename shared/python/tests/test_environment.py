"""``DedupClient()`` finds the agent as the manifests tell workers: ``DEDUP_URL`` and ``DEDUP_TOKEN``.

The environment is given to the client (``environ=``), or to a worker process of its own; this process's
environment is never changed.
"""

from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest

from dedup_client import DedupClient, DedupError
from processes import TOKEN, AgentProcess, fresh

NS = "py-environment"
PYTHON = Path(__file__).resolve().parents[1]


@pytest.fixture
def recorder() -> Iterator[Tuple[str, List[Dict[str, str]]]]:
    """An HTTP server that answers ``new`` to a claim of one item and keeps the headers it was sent."""
    seen: List[Dict[str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            self.rfile.read(int(self.headers["Content-Length"]))
            seen.append(dict(self.headers))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-dedup-verdicts")
            self.send_header("Content-Length", "1")
            self.end_headers()
            self.wfile.write(b"\x00")

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()
    server.server_close()
    t.join()


def test_noUrl_isDedupUrl_andNoToken_isDedupToken(recorder) -> None:
    url, seen = recorder
    client = DedupClient(environ={"DEDUP_URL": url, "DEDUP_TOKEN": TOKEN, "PATH": "/bin"})
    assert client.url == url
    assert client.claim(NS, [("a", "0:1")]) == ["new"]
    assert seen[-1]["Authorization"] == "Bearer " + TOKEN


def test_withoutDedupUrl_theAgentIsTheSidecarOnLoopback() -> None:
    assert DedupClient.DEFAULT_URL == "http://127.0.0.1:7070"
    assert DedupClient(environ={}).url == DedupClient.DEFAULT_URL
    assert DedupClient(environ={"DEDUP_URL": "  "}).url == DedupClient.DEFAULT_URL, "empty is unset"


def test_theProcessEnvironment_isReadByDefault() -> None:
    assert DedupClient().url == (os.environ.get("DEDUP_URL", "").strip() or DedupClient.DEFAULT_URL)


@pytest.mark.parametrize("token", [None, "", " \n"])
def test_anUnsetOrEmptyDedupToken_sendsNone(recorder, token) -> None:
    url, seen = recorder
    environ = {"DEDUP_URL": url} if token is None else {"DEDUP_URL": url, "DEDUP_TOKEN": token}
    DedupClient(environ=environ).claim(NS, [("a", "0:1")])
    assert "Authorization" not in seen[-1]


def test_whitespaceAroundTheVariables_isIgnored_asTheAgentIgnoresIt(recorder) -> None:
    url, seen = recorder
    client = DedupClient(environ={"DEDUP_URL": f" {url}\n", "DEDUP_TOKEN": TOKEN + "\n"})  # a Secret's newline
    client.claim(NS, [("a", "0:1")])
    assert seen[-1]["Authorization"] == "Bearer " + TOKEN


def test_argumentsWinOverTheEnvironment(recorder) -> None:
    url, seen = recorder
    environ = {"DEDUP_URL": "http://127.0.0.1:1", "DEDUP_TOKEN": "from-the-environment"}
    client = DedupClient(url, token="given-explicitly", environ=environ)
    assert client.url == url
    client.claim(NS, [("a", "0:1")])
    assert seen[-1]["Authorization"] == "Bearer given-explicitly"
    # an explicit url leaves the token to the environment, and the other way round
    DedupClient(url, environ=environ).claim(NS, [("a", "0:1")])
    assert seen[-1]["Authorization"] == "Bearer from-the-environment"
    assert DedupClient(token="given-explicitly", environ=environ).url == "http://127.0.0.1:1"


@pytest.mark.parametrize(
    "environ, message",
    [
        ({"DEDUP_URL": "127.0.0.1:7070"}, "^DEDUP_URL: '127.0.0.1:7070' is not an http"),
        ({"DEDUP_URL": "http://127.0.0.1:notaport"}, "^DEDUP_URL: "),
        ({"DEDUP_TOKEN": "two words"}, "^DEDUP_TOKEN: must be non-empty printable ASCII without spaces$"),
    ],
)
def test_aBadVariable_isAValueErrorNamingIt(environ, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DedupClient(environ=environ)


def test_anAgentWithAToken_answersTheEnvironmentsToken_andSays401WithoutIt(tmp_path, processes) -> None:
    agent = AgentProcess(tmp_path / "a", "--token", TOKEN).start()
    processes.append(agent)
    items = [(fresh(), "0:1"), (fresh(), "0:2")]
    with pytest.raises(DedupError) as caught:
        DedupClient(environ={"DEDUP_URL": agent.url}).claim(NS, items)
    e = caught.value
    assert (e.status, e.error, e.rejected) == (401, "unauthorized", True)
    assert "this client sent no token: give it the agent's --token (DEDUP_TOKEN)" in str(e)
    with pytest.raises(DedupError) as caught:
        DedupClient(environ={"DEDUP_URL": agent.url, "DEDUP_TOKEN": "not-the-right-token"}).claim(NS, items)
    assert caught.value.status == 401 and "sent no token" not in str(caught.value)
    with DedupClient(environ={"DEDUP_URL": agent.url, "DEDUP_TOKEN": TOKEN}) as client:
        assert client.claim(NS, items) == ["new", "new"]
        assert client.claim(NS, items) == ["retry", "retry"]


def worker(source: str, environment: Dict[str, str]) -> subprocess.CompletedProcess:
    """``source`` in a Python process of its own, given ``environment`` and nothing else but the package."""
    env = {"PYTHONPATH": f"{PYTHON / 'src'}", "PYTHONDONTWRITEBYTECODE": "1", **environment}
    return subprocess.run(
        [sys.executable, "-c", source], env=env, capture_output=True, text=True, timeout=60, check=False
    )


SPARK_TASK = """
from collections import namedtuple
from dedup_client import kafka_owner
from dedup_client.spark import dedup_partition
Row = namedtuple("Row", "key topic partition offset headers")
rows = [Row(b"user-7", "clicks", 0, n, [("message-id", i.encode())]) for n, i in enumerate({ids!r})]
verdicts = []
kept = list(dedup_partition(iter(rows), ns="{ns}", id_of=lambda r: dict(r.headers)["message-id"].decode(),
                            owner_of=lambda r: kafka_owner(r.topic, r.partition, r.offset),
                            on_verdicts=verdicts.extend))
print(len(kept), " ".join(verdicts))
"""


def test_theSparkPartition_withoutUrlOrToken_claimsAtTheAgentOfItsEnvironment(tmp_path, processes) -> None:
    agent = AgentProcess(tmp_path / "a", "--token", TOKEN).start()
    processes.append(agent)
    task = SPARK_TASK.format(ids=[fresh() for _ in range(3)], ns=NS)
    first = worker(task, {"DEDUP_URL": agent.url, "DEDUP_TOKEN": TOKEN})
    assert (first.returncode, first.stdout) == (0, "3 new new new\n"), first.stderr
    again = worker(task, {"DEDUP_URL": agent.url, "DEDUP_TOKEN": TOKEN})  # Spark runs the task again
    assert (again.returncode, again.stdout) == (0, "3 retry retry retry\n"), again.stderr
    without = worker(task, {"DEDUP_URL": agent.url})
    assert without.returncode != 0
    assert "DedupError: 401 unauthorized" in without.stderr and "DEDUP_TOKEN" in without.stderr, without.stderr
