"""The contract's cases (docs/api.md) through the client, against the real agent on the embedded store."""

from __future__ import annotations

import json
import time
import uuid

import pytest

from dedup_client import DedupClient, DedupError, Item, Verdict
from processes import AgentProcess, fresh

NS = "py-contract"


def test_firstClaim_isNew_sameOwnerAgain_isRetry_anotherOwner_isDuplicate(client: DedupClient) -> None:
    id_ = fresh()
    assert client.claim(NS, [Item(id_, "3:81418110694")]) == [Verdict.NEW]
    assert client.claim(NS, [Item(id_, "3:81418110694")]) == [Verdict.RETRY]
    assert client.claim(NS, [Item(id_, "5:12345")]) == [Verdict.DUPLICATE]


def test_verdicts_compareEqualToTheContractStrings() -> None:
    assert [Verdict.NEW, Verdict.RETRY, Verdict.DUPLICATE] == ["new", "retry", "duplicate"]
    assert str(Verdict.DUPLICATE) == "duplicate"
    assert f"{Verdict.RETRY}" == "retry"
    assert json.dumps([Verdict.NEW]) == '["new"]'
    assert Verdict("retry") is Verdict.RETRY
    assert [v.code for v in Verdict] == [0, 1, 2]


def test_sameIdTwiceInOneBatch_isDecidedInOrder(client: DedupClient) -> None:
    a, b = fresh(), fresh()
    verdicts = client.claim(NS, [(a, "p:1"), (a, "p:1"), (b, "p:2"), (b, "p:3")])
    assert verdicts == ["new", "retry", "new", "duplicate"]


def test_answersComeInItemOrder_forAMixedBatch(client: DedupClient) -> None:
    claimed = [fresh() for _ in range(300)]
    client.claim(NS, [(id_, "first") for id_ in claimed])
    batch, expected = [], []
    for i, id_ in enumerate(claimed):
        if i % 3 == 0:
            batch.append((id_, "first"))
            expected.append(Verdict.RETRY)
        elif i % 3 == 1:
            batch.append((id_, "second"))
            expected.append(Verdict.DUPLICATE)
        else:
            batch.append((fresh(), "first"))
            expected.append(Verdict.NEW)
    assert client.claim(NS, batch) == expected


def test_tuplesAndItems_areTheSame(client: DedupClient) -> None:
    id_ = fresh()
    assert client.claim(NS, [(id_, "o")]) == ["new"]
    assert client.claim(NS, [Item(id_, "o")]) == ["retry"]
    assert client.claim(NS, [[id_, "o", None]]) == ["retry"]


def test_itemsMayBeAnyIterable(client: DedupClient) -> None:
    ids = [fresh() for _ in range(5)]
    assert client.claim(NS, ((id_, "gen") for id_ in ids)) == ["new"] * 5


def test_emptyBatch_answersNothing(client: DedupClient) -> None:
    assert client.claim(NS, []) == []
    assert client.release(NS, []) == []


def test_noNamespace_isTheDefaultNamespace(client: DedupClient) -> None:
    id_ = fresh()
    assert client.claim(None, [(id_, "a")]) == ["new"]
    assert client.claim("", [(id_, "b")]) == ["duplicate"]
    assert client.claim("default", [(id_, "c")]) == ["duplicate"]


def test_namespaces_areSeparate(client: DedupClient) -> None:
    id_ = fresh()
    assert client.claim("py-one", [(id_, "a")]) == ["new"]
    assert client.claim("py-two", [(id_, "b")]) == ["new"]


def test_bytesIds_areOpaque_andTheSameBytesAsTextAreTheSameId(client: DedupClient) -> None:
    raw = uuid.uuid4().bytes + b"\x00\xff"
    assert client.claim(NS, [(raw, b"\x01\x02")]) == ["new"]
    assert client.claim(NS, [(raw, "other")]) == ["duplicate"]
    text = fresh("caf\u00e9-\u6f22\u5b57-\U0001f600")
    assert client.claim(NS, [(text.encode("utf-8"), "o")]) == ["new"]
    assert client.claim(NS, [(text, "o")]) == ["retry"]


def test_longestIdAndOwner_theContractAllows(client: DedupClient) -> None:
    id_ = fresh().ljust(512, "x")
    owner = "o" * 128
    assert client.claim(NS, [(id_, owner)]) == ["new"]


def test_release_byTheOwner_makesTheNextClaimNew(client: DedupClient) -> None:
    id_ = fresh()
    assert client.claim(NS, [(id_, "3:10")]) == ["new"]
    assert client.release(NS, [(id_, "5:99")]) == [False]  # another owner holds nothing
    assert client.claim(NS, [(id_, "5:99")]) == ["duplicate"]
    assert client.release(NS, [(id_, "3:10")]) == [True]
    assert client.release(NS, [(id_, "3:10")]) == [False]  # already given back
    assert client.claim(NS, [(id_, "5:99")]) == ["new"]


def test_release_ofWhatNobodyClaimed_isFalse(client: DedupClient) -> None:
    assert client.release(NS, [(fresh(), "o"), (fresh(), "o")]) == [False, False]


def test_aRejectedBatch_claimsNothing(client: DedupClient) -> None:
    good = fresh()
    with pytest.raises(DedupError) as caught:
        client.claim(NS, [(good, "o"), ("", "o")])
    assert caught.value.status == 400
    assert caught.value.error == "bad_request"
    assert caught.value.detail.startswith("items[1].id")
    assert caught.value.rejected and not caught.value.unavailable
    assert client.claim(NS, [(good, "o")]) == ["new"]


@pytest.mark.parametrize(
    "items, where",
    [
        ([("", "o")], "items[0].id"),
        ([("x" * 513, "o")], "items[0].id"),
        ([(fresh(), "")], "items[0].owner"),
        ([(fresh(), "o"), (fresh(), "o" * 129)], "items[1].owner"),
    ],
)
def test_badItems_areA400_namingTheItem(client: DedupClient, items, where: str) -> None:
    with pytest.raises(DedupError) as caught:
        client.claim(NS, items)
    e = caught.value
    assert (e.status, e.error, e.retry_after) == (400, "bad_request", None)
    assert where in e.detail, e.detail
    assert str(e).startswith("400 bad_request: ")


@pytest.mark.parametrize("ns", ["has space", "a/b", "x" * 65, "caf\u00e9"])
def test_badNamespace_isA400(client: DedupClient, ns: str) -> None:
    with pytest.raises(DedupError) as caught:
        client.claim(ns, [(fresh(), "o")])
    assert (caught.value.status, caught.value.error) == (400, "bad_request")


def test_moreItemsThanMaxBatch_isA413(client: DedupClient) -> None:
    # The test agent runs with --max-batch 1000.
    with pytest.raises(DedupError) as caught:
        client.claim(NS, [(fresh(), "o") for _ in range(1001)])
    assert (caught.value.status, caught.value.error) == (413, "too_large")
    assert client.claim(NS, [(fresh(), "o") for _ in range(1000)]) == ["new"] * 1000


@pytest.mark.parametrize(
    "items, error",
    [
        ([("a", "o", 1_795_385_803_000)], "milliseconds"),
        ([("a", "o", 0)], "items[0].ts"),
        ([("a", "o", 1_795_385_803), ("b", "o")], "1 of 2 carry an event time"),
        ([("x" * 65536, "o")], "items[0].id: 65536 bytes"),
    ],
)
def test_whatTheBinaryFormatCannotHold_isAValueError_andNothingIsSent(
    client: DedupClient, items, error: str
) -> None:
    with pytest.raises(ValueError, match=error.replace("[", r"\[").replace("]", r"\]")):
        client.claim(NS, items)


@pytest.mark.parametrize(
    "items",
    [["just-an-id"], [("only-one",)], [("a", "b", 3, 4)], [(1, "o")], [("a", None)], [("a", "o", "1795385803")]],
)
def test_itemsOfTheWrongShape_areATypeError(client: DedupClient, items) -> None:
    with pytest.raises(TypeError, match=r"items\[0\]"):
        client.claim(NS, items)


def test_namespaceLongerThanTheFormatHolds_isAValueError(client: DedupClient) -> None:
    with pytest.raises(ValueError, match="ns: 128 bytes"):
        client.claim("n" * 128, [("a", "o")])


def test_eventTimes_areSentAndRequiredWhereTheNamespaceIsFiledByThem(tmp_path, processes) -> None:
    agent = AgentProcess(tmp_path / "timed", "--namespace-event-rate", "timed=1000").start()
    processes.append(agent)
    ts = int(time.time())  # a claim is remembered from its event time for the window: stamp it now
    with DedupClient(agent.url) as client:
        id_ = fresh()
        assert client.claim("timed", [Item(id_, "0:1", ts)]) == ["new"]
        assert client.claim("timed", [Item(id_, "0:2", ts)]) == ["duplicate"]
        with pytest.raises(DedupError) as caught:
            client.claim("timed", [Item(fresh(), "0:3")])
        assert caught.value.status == 400 and "items[0].ts" in caught.value.detail
        assert client.release("timed", [Item(id_, "0:1", ts)]) == [True]
        assert client.claim("timed", [Item(id_, "0:2", ts)]) == ["new"]
        # Elsewhere ts is ignored.
        other = fresh()
        assert client.claim("untimed", [Item(other, "a", ts)]) == ["new"]
        assert client.claim("untimed", [Item(other, "a")]) == ["retry"]
