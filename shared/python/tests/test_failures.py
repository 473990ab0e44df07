"""Every way a call fails raises DedupError: a stopped agent, a store that is down (503 + Retry-After), a
missing token, no answer in time, an answer that is not the agent's. Each starts the processes it needs."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time
from typing import Iterator, List, Tuple

import pytest

from dedup_client import Claims, DedupClient, DedupError, Item, SequenceRange
from processes import TOKEN, AgentProcess, RedisProcess, free_port, fresh

NS = "py-failures"


def test_noAgentListening_isUnreachable() -> None:
    client = DedupClient(f"http://127.0.0.1:{free_port()}")
    with pytest.raises(DedupError) as caught:
        client.claim(NS, [("a", "o")])
    e = caught.value
    assert (e.status, e.error, e.retry_after) == (None, DedupError.UNREACHABLE, None)
    assert "ConnectionRefusedError" in e.detail
    assert isinstance(e.__cause__, ConnectionRefusedError)
    assert not e.rejected
    for call in (client.check_ranges, client.commit_ranges):
        with pytest.raises(DedupError) as caught:
            call(NS, "s", [SequenceRange(0, 9)])
        assert (caught.value.status, caught.value.error) == (None, DedupError.UNREACHABLE)


def test_agentStoppedBetweenCalls_isUnreachable_andAgainOnceItIsBack(tmp_path, processes) -> None:
    agent = AgentProcess(tmp_path / "a").start()
    processes.append(agent)
    client = DedupClient(agent.url)
    id_ = fresh()
    assert client.claim(NS, [(id_, "o")]) == ["new"]  # leaves a kept-alive connection

    agent.stop()  # SIGTERM: the agent drains and exits, closing the connection
    assert agent.process.returncode == 0
    with pytest.raises(DedupError) as caught:
        client.claim(NS, [(id_, "o")])
    assert caught.value.error == DedupError.UNREACHABLE

    restarted = AgentProcess(tmp_path / "a").start()  # the same data directory: the embedded store kept the claim
    processes.append(restarted)
    with DedupClient(restarted.url) as again:
        assert again.claim(NS, [(id_, "o"), (id_, "other")]) == ["retry", "duplicate"]


def test_redisDown_is503_withRetryAfter_andClaimsHonoursIt(tmp_path, processes) -> None:
    redis = RedisProcess(tmp_path / "redis", aof=True).start()  # it comes back with its data
    processes.append(redis)
    agent = AgentProcess(tmp_path / "agent", "--redis", redis.uri, "--redis-timeout", "500ms").start()
    processes.append(agent)
    client = DedupClient(agent.url)
    before = fresh()
    assert client.claim(NS, [(before, "o")]) == ["new"]

    redis.kill()
    with pytest.raises(DedupError) as caught:
        client.claim(NS, [(fresh(), "o")])
    e = caught.value
    assert (e.status, e.error, e.retry_after) == (503, "unavailable", 1.0)
    assert e.unavailable and not e.rejected
    # The ranges calls too: nothing may be taken as done, the commit is not known to be made.
    for call in (client.check_ranges, client.commit_ranges):
        with pytest.raises(DedupError) as caught:
            call(NS, fresh("stream"), [SequenceRange(0, 9)])
        assert (caught.value.status, caught.value.error, caught.value.retry_after) == (503, "unavailable", 1.0)

    # Claims waits each Retry-After while Redis is gone, and gets the verdicts once it is back on its port.
    waits: List[float] = []

    def wait(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    restart = threading.Timer(0.5, redis.start)
    restart.start()
    try:
        patient = Claims(client, NS, 60, sleep=wait)
        started = time.monotonic()
        verdicts = patient.claim([(before, "o"), (fresh(), "o")])
        assert time.monotonic() - started >= 0.5
        assert waits and all(w == 1.0 for w in waits), waits
        assert verdicts[0] in ("new", "retry")  # Redis kept nothing; the near-cache may still know it
        assert verdicts[1] == "new"
    finally:
        restart.join()


def test_token_isSentAsBearer_andItsAbsenceIsA401(tmp_path, processes) -> None:
    agent = AgentProcess(tmp_path / "a", "--token", TOKEN).start()
    processes.append(agent)
    with pytest.raises(DedupError) as caught:
        DedupClient(agent.url).claim(NS, [(fresh(), "o")])
    assert (caught.value.status, caught.value.error) == (401, "unauthorized")
    assert caught.value.rejected
    with pytest.raises(DedupError) as caught:
        DedupClient(agent.url, token="not-the-right-token-at-all").claim(NS, [(fresh(), "o")])
    assert caught.value.status == 401
    stream = fresh("stream")
    no_token, wrong_token = DedupClient(agent.url), DedupClient(agent.url, token="not-the-right-token")
    for call in (no_token.check_ranges, wrong_token.commit_ranges):
        with pytest.raises(DedupError) as caught:
            call(NS, stream, [SequenceRange(0, 9)])
        assert (caught.value.status, caught.value.error) == (401, "unauthorized")
    with DedupClient(agent.url, token=TOKEN) as client:
        id_ = fresh()
        assert client.claim(NS, [(id_, "o")]) == ["new"]
        assert client.release(NS, [(id_, "o")]) == [True]
        assert client.check_ranges(NS, stream, [SequenceRange(0, 9)]) == [[]]  # the 401 committed nothing
        client.commit_ranges(NS, stream, [SequenceRange(0, 9)])
        assert client.check_ranges(NS, stream, [SequenceRange(5, 20)]) == [[SequenceRange(5, 9)]]


@pytest.mark.parametrize(
    "kwargs, setting",
    [
        ({"url": "127.0.0.1:7070"}, "url"),
        ({"url": "ftp://127.0.0.1:7070"}, "url"),
        ({"url": "http://127.0.0.1:7070/?x=1"}, "url"),
        ({"url": "http://127.0.0.1:notaport"}, "url"),
        ({"token": ""}, "token"),
        ({"token": "has space"}, "token"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": "5"}, "timeout"),
    ],
)
def test_badSettings_areAValueErrorNamingTheSetting(kwargs, setting: str) -> None:
    with pytest.raises(ValueError, match=f"^{setting}: "):
        DedupClient(**kwargs)


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A socket that accepts connections and never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    accepted: List[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    yield server.getsockname()[1]
    stop.set()
    t.join()
    for s in accepted:
        s.close()
    server.close()


def test_noAnswerInTime_isATimeout(silent_server: int) -> None:
    client = DedupClient(f"http://127.0.0.1:{silent_server}", timeout=0.3)
    started = time.monotonic()
    with pytest.raises(DedupError) as caught:
        client.claim(NS, [("a", "o")])
    assert (caught.value.status, caught.value.error) == (None, DedupError.TIMEOUT)
    assert 0.3 <= time.monotonic() - started < 5


class _Answers(List[Tuple[int, bytes, dict]]):
    """What the impostor answers next (popped in order), and ``requests``: what it was sent (path, headers, body)."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: List[Tuple[str, dict, bytes]] = []


@pytest.fixture
def impostor() -> Iterator[Tuple[str, List[Tuple[int, bytes, dict]]]]:
    """An HTTP server that answers what the test queues, standing in for a broken agent or a proxy."""
    answers = _Answers()
    requests = answers.requests

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            body = self.rfile.read(int(self.headers["Content-Length"]))
            requests.append((self.path, dict(self.headers), body))
            status, body, headers = answers.pop(0)
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", answers
    server.shutdown()
    server.server_close()
    t.join()


def test_answersThatAreNotVerdicts_areInvalidResponses(impostor) -> None:
    url, answers = impostor
    client = DedupClient(url)
    answers.append((200, b"\x00", {}))
    with pytest.raises(DedupError) as caught:
        client.claim(NS, [("a", "o"), ("b", "o")])
    assert (caught.value.status, caught.value.error) == (200, DedupError.INVALID_RESPONSE)
    assert caught.value.detail == "1 bytes for 2 items"
    answers.append((200, b"\x03", {}))
    with pytest.raises(DedupError, match="byte 0 is 3, not a verdict"):
        client.claim(NS, [("a", "o")])
    answers.append((200, b"\x02", {}))
    with pytest.raises(DedupError, match="byte 0 is 2, not 0 or 1"):
        client.release(NS, [("a", "o")])


@pytest.mark.parametrize(
    "answer, detail",
    [
        (b'{"done": []}', '"done" is not a list of 2 lists'),
        (b'{"done": [[], {}]}', "done[1] is not a list"),
        (b'{"done": [[], [{"from": "5", "to": "30"}]]}', "not a part of [0, 20]"),
        (b'{"done": [[{"from": "0", "to": "10"}], []]}', "not a part of [0, 9]"),
        (b'{"done": [[], [{"from": "09", "to": "10"}]]}', "not a part of"),
        (b'{"done": [[], [{"from": 1, "to": 2}]]}', "not a part of"),
        (b'{"done": [[], [{"from": "4", "to": "3"}]]}', "not a part of"),
        (b'{"done": [[], [{"from": "1", "to": "5"}, {"from": "5", "to": "6"}]]}', "[5, 6] is not after [1, 5]"),
        (b'{"verdicts": []}', 'no "done" in the answer'),
        (b"<html>OK</html>", "not JSON"),
    ],
)
def test_aCheckAnswerThatIsNotOneListOfPartsPerRange_isAnInvalidResponse(
    impostor, answer: bytes, detail: str
) -> None:
    url, answers = impostor
    answers.append((200, answer, {}))
    with pytest.raises(DedupError) as caught:
        DedupClient(url).check_ranges(NS, "s", [SequenceRange(0, 9), SequenceRange(0, 20)])
    assert (caught.value.status, caught.value.error) == (200, DedupError.INVALID_RESPONSE)
    assert detail in caught.value.detail, caught.value.detail


@pytest.mark.parametrize(
    "answer", [b'{"committed": [true]}', b'{"committed": [true, false]}', b'{"committed": [true, 1]}', b"{}"]
)
def test_aCommitAnswerThatIsNotOneTruePerRange_isAnInvalidResponse(impostor, answer: bytes) -> None:
    url, answers = impostor
    answers.append((200, answer, {}))
    with pytest.raises(DedupError) as caught:
        DedupClient(url).commit_ranges(NS, "s", [SequenceRange(0, 9), SequenceRange(20, 29)])
    assert caught.value.error == DedupError.INVALID_RESPONSE


def test_theRangesCalls_sendJson_withTheToken(impostor) -> None:
    url, answers = impostor
    answers.append((200, b'{"committed": [true]}', {}))
    answers.append((200, b'{"done": [[{"from": "3", "to": "4"}]]}', {}))
    client = DedupClient(url + "/prefix", token=TOKEN)
    client.commit_ranges(None, "shard-1", [(3, 4)])
    assert client.check_ranges("orders", "shard-1", [SequenceRange.of("0", "9")]) == [[SequenceRange(3, 4)]]
    (commit, check) = answers.requests
    assert commit[0] == "/prefix/v1/ranges/commit" and check[0] == "/prefix/v1/ranges/check"
    for _, headers, _ in (commit, check):
        assert headers["Content-Type"] == "application/json"
        assert headers["Authorization"] == "Bearer " + TOKEN
    assert json.loads(commit[2]) == {"stream": "shard-1", "ranges": [{"from": "3", "to": "4"}]}
    assert json.loads(check[2]) == {"ns": "orders", "stream": "shard-1", "ranges": [{"from": "0", "to": "9"}]}


def test_aProxysPage_keepsItsStartAsTheDetail_andAnHttpDateRetryAfter(impostor) -> None:
    url, answers = impostor
    client = DedupClient(url)
    answers.append((502, b"<html>Bad Gateway</html>", {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}))
    with pytest.raises(DedupError) as caught:
        client.claim(NS, [("a", "o")])
    e = caught.value
    assert (e.status, e.error, e.detail) == (502, "http_502", "<html>Bad Gateway</html>")
    assert e.retry_after == 0.0  # a date in the past: send again now


def test_aStaleKeptAliveConnection_isReplacedOnce(impostor) -> None:
    url, answers = impostor
    client = DedupClient(url)
    answers.append((200, b"\x00", {}))
    assert client.claim(NS, [("a", "o")]) == ["new"]
    # As if the agent had closed the idle connection: the server sees the end of the stream and closes its
    # side, so the next request on this connection gets no answer.
    stale = client._local.held[1]
    stale.sock.shutdown(socket.SHUT_WR)
    time.sleep(0.2)
    answers.append((200, b"\x01", {}))
    assert client.claim(NS, [Item("a", "o")]) == ["retry"]
    assert client._local.held[1] is not stale
