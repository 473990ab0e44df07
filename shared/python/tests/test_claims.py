"""``Claims``: real calls to a real agent (or to a port where none listens), a fake clock for the waits."""

from __future__ import annotations

from typing import List

import pytest

from dedup_client import Claims, DedupClient, DedupError
from processes import TOKEN, AgentProcess, free_port, fresh


class FakeTime:
    """A monotonic clock that only the pauses move."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.pauses: List[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


def test_anAgentThatDoesNotAnswer_isAskedAgain_50msDoublingTo1s_untilPatienceIsSpent() -> None:
    time = FakeTime()
    claims = Claims(DedupClient(f"http://127.0.0.1:{free_port()}"), "py-claims", 3.0, clock=time.clock, sleep=time.sleep)

    with pytest.raises(DedupError) as caught:
        claims.claim([(fresh(), "clicks:0:1")])

    assert caught.value.error == DedupError.UNREACHABLE
    assert time.pauses == pytest.approx([0.05, 0.1, 0.2, 0.4, 0.8, 1.0, 0.45])  # the last wait ends at 3 s


def test_patienceZero_sendsOnce() -> None:
    time = FakeTime()
    claims = Claims(DedupClient(f"http://127.0.0.1:{free_port()}"), "py-claims", 0, clock=time.clock, sleep=time.sleep)
    with pytest.raises(DedupError):
        claims.release([(fresh(), "clicks:0:1")])
    assert time.pauses == []


def test_aRejectedRequest_isRaisedAtOnce(tmp_path, processes) -> None:
    agent = AgentProcess(tmp_path / "a", "--token", TOKEN).start()
    processes.append(agent)
    time = FakeTime()
    claims = Claims(DedupClient(agent.url), "py-claims", 60, clock=time.clock, sleep=time.sleep)  # no token: 401
    with pytest.raises(DedupError) as caught:
        claims.claim([(fresh(), "clicks:0:1")])
    assert caught.value.status == 401 and time.pauses == []


def test_aStoreThatIsDown_isWaitedForAsItsRetryAfterSays_andTheSameItemsAnswerRetryForWhatWasClaimed(client: DedupClient) -> None:
    time = FakeTime()
    calls: List[int] = []
    real = client.claim

    def flaky(ns, items):
        calls.append(len(items))
        verdicts = real(ns, items)  # claimed at the agent...
        if len(calls) < 3:
            raise DedupError(503, "unavailable", "the store did not answer", 1.0)  # ...but the answer is lost
        return verdicts

    client.claim = flaky  # type: ignore[method-assign]
    claims = Claims(client, "py-claims", 60, clock=time.clock, sleep=time.sleep)
    assert claims.claim([(fresh(), "clicks:0:7"), (fresh(), "clicks:0:8")]) == ["retry", "retry"]
    assert calls == [2, 2, 2] and time.pauses == [1.0, 1.0]  # the 503's Retry-After, longer than 50 ms


def test_release_answersPerItemWhetherItWasReleased(client: DedupClient) -> None:
    id_ = fresh()
    claims = Claims(client, "py-claims")
    assert claims.claim([(id_, "clicks:0:1")]) == ["new"]
    assert claims.release([(id_, "clicks:0:1"), (fresh(), "clicks:0:2")]) == [True, False]
    assert claims.release([]) == []
    assert claims.claim([(id_, "clicks:0:3")]) == ["new"]


def test_badPatience_isNamed() -> None:
    with pytest.raises(ValueError, match="^patience: must be seconds >= 0, got -1"):
        Claims(DedupClient(), "x", -1)
