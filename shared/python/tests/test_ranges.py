"""The contract's ordered-stream calls (``/v1/ranges/check``, ``/v1/ranges/commit``; docs/api.md) through
the client, against the real agent on the embedded store. Every test works on streams of its own."""

from __future__ import annotations

import json
import urllib.request
import pytest

from dedup_client import DedupClient, DedupError, SequenceRange
from processes import fresh

NS = "py-ranges"

# Kinesis sequence numbers: 56 digits, sparse.
KINESIS = 49590338271490256608559692538361571095921575989136588898


def R(first: int, last: int) -> SequenceRange:
    return SequenceRange(first, last)


def stats(agent_url: str) -> dict:
    with urllib.request.urlopen(agent_url + "/v1/stats", timeout=5) as r:
        return json.loads(r.read())


# --- check ---------------------------------------------------------------------------------------------


def test_nothingCommitted_isNoneDone(client: DedupClient) -> None:
    assert client.check_ranges(NS, fresh("stream"), [R(0, 99)]) == [[]]


def test_aCommittedRange_isAllDone_andOnlyTheAskedPartIsAnswered(client: DedupClient) -> None:
    stream = fresh("stream")
    client.commit_ranges(NS, stream, [R(10, 19)])
    assert client.check_ranges(NS, stream, [R(10, 19)]) == [[R(10, 19)]]
    assert client.check_ranges(NS, stream, [R(12, 14)]) == [[R(12, 14)]]


def test_partialOverlaps_answerTheCommittedSubRanges(client: DedupClient) -> None:
    stream = fresh("stream")
    client.commit_ranges(NS, stream, [R(10, 19)])
    asked = [R(5, 25), R(15, 30), R(0, 10), R(20, 30), R(0, 9)]
    assert client.check_ranges(NS, stream, asked) == [
        [R(10, 19)],  # overlaps both ends
        [R(15, 19)],  # overlaps the start of the asked range
        [R(10, 10)],  # touches at one number
        [],  # adjacent after: nothing of it is done
        [],  # adjacent before
    ]


def test_gapsBetweenCommits_giveSeveralParts_inOrder(client: DedupClient) -> None:
    stream = fresh("stream")
    client.commit_ranges(NS, stream, [R(30, 34), R(0, 4), R(10, 14)])
    assert client.check_ranges(NS, stream, [R(0, 40), R(3, 11)]) == [
        [R(0, 4), R(10, 14), R(30, 34)],
        [R(3, 4), R(10, 11)],
    ]


def test_pairsAndDecimalText_areRanges_andTheAnswerIsSequenceRanges(client: DedupClient) -> None:
    stream = fresh("stream")
    client.commit_ranges(NS, stream, [(1, 5), ["7", "9"]])
    (done,) = client.check_ranges(NS, stream, ((n, n + 10) for n in [0]))
    assert done == [SequenceRange(1, 5), SequenceRange(7, 9)]
    assert all(isinstance(r.first, int) and isinstance(r.last, int) for r in done)


def test_emptyLists_answerNothing(client: DedupClient) -> None:
    assert client.check_ranges(NS, fresh("stream"), []) == []
    assert client.commit_ranges(NS, fresh("stream"), []) is None


# --- commit --------------------------------------------------------------------------------------------


def test_adjacentAndOverlappingCommits_merge_intoOneStoredRange(agent, client: DedupClient) -> None:
    stream = fresh("stream")
    before = stats(agent.url)["store"]
    client.commit_ranges(NS, stream, [R(0, 99)])
    client.commit_ranges(NS, stream, [R(100, 199)])  # adjacent
    client.commit_ranges(NS, stream, [R(150, 249)])  # overlapping
    client.commit_ranges(NS, stream, [R(0, 249)])  # again: idempotent
    after = stats(agent.url)["store"]
    assert client.check_ranges(NS, stream, [R(0, 300)]) == [[R(0, 249)]]
    assert after["range_streams"] - before["range_streams"] == 1
    assert after["range_intervals"] - before["range_intervals"] == 1


def test_sparseKinesisNumbers_committedAfterThePreviousBatch_merge(client: DedupClient) -> None:
    shard = fresh("shardId")
    batches = [
        [str(KINESIS + 1_000), str(KINESIS + 1_170), str(KINESIS + 2_450)],
        [str(KINESIS + 3_000), str(KINESIS + 5_020)],
        [str(KINESIS + 9_999)],
    ]
    previous_last = None
    for seqs in batches:
        client.commit_ranges(NS, shard, [SequenceRange.after(previous_last, seqs[0], seqs[-1])])
        previous_last = seqs[-1]
    whole = SequenceRange.of(str(KINESIS), str(KINESIS + 20_000))
    assert client.check_ranges(NS, shard, [whole]) == [[R(KINESIS + 1_000, KINESIS + 9_999)]]
    # A re-read batch finds every one of its records done.
    (done,) = client.check_ranges(NS, shard, [SequenceRange.of(batches[1][0], batches[1][-1])])
    assert all(any(d.contains(s) for d in done) for s in batches[1])


def test_theLargestNumbersTheContractAllows_roundTrip(client: DedupClient) -> None:
    stream = fresh("stream")
    top = 10**129 - 1
    client.commit_ranges(NS, stream, [R(top - 5, top)])
    assert client.check_ranges(NS, stream, [R(top - 10, top)]) == [[R(top - 5, top)]]
    assert client.check_ranges(NS, stream, [R(0, 0)]) == [[]]


def test_streamsAndNamespaces_areSeparate_andNoNamespaceIsTheDefault(client: DedupClient) -> None:
    stream, other = fresh("stream"), fresh("stream")
    client.commit_ranges(None, stream, [R(0, 9)])
    assert client.check_ranges("", stream, [R(0, 9)]) == [[R(0, 9)]]
    assert client.check_ranges("default", stream, [R(0, 9)]) == [[R(0, 9)]]
    assert client.check_ranges(NS, stream, [R(0, 9)]) == [[]]
    assert client.check_ranges(None, other, [R(0, 9)]) == [[]]


def test_streamNames_areUtf8_upTo256Bytes(client: DedupClient) -> None:
    prefix = fresh("s") + "-"
    if len(prefix) % 2:
        prefix += "-"
    stream = prefix + "\u00e9" * ((256 - len(prefix)) // 2)  # two UTF-8 bytes each
    assert len(stream.encode()) == 256
    client.commit_ranges(NS, stream, [R(1, 1)])
    assert client.check_ranges(NS, stream, [R(0, 2)]) == [[R(1, 1)]]


# --- bad input ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "ns, stream, ranges, where",
    [
        (NS, "", [R(0, 1)], "stream: empty"),
        (NS, "s" * 257, [R(0, 1)], "stream: 257 bytes"),
        ("has space", "s", [R(0, 1)], "ns"),
        ("x" * 65, "s", [R(0, 1)], "ns"),
        (NS, "s", [R(0, 1), R(0, 10**129)], "ranges[1].to: 130 digits; at most 129"),
        (NS, "s", [R(10**129, 10**129)], "ranges[0].from: 130 digits"),
    ],
)
def test_whatTheContractRefuses_isA400NamingThePlace(client: DedupClient, ns, stream, ranges, where: str) -> None:
    for call in (client.check_ranges, client.commit_ranges):
        with pytest.raises(DedupError) as caught:
            call(ns, stream, ranges)
        e = caught.value
        assert (e.status, e.error, e.retry_after) == (400, "bad_request", None)
        assert e.rejected and not e.unavailable
        assert where in e.detail, e.detail
        assert str(e).startswith("400 bad_request: ")


def test_aRejectedCommit_commitsNothing(client: DedupClient) -> None:
    stream = fresh("stream")
    with pytest.raises(DedupError) as caught:
        client.commit_ranges(NS, stream, [R(0, 9), R(20, 10**129)])
    assert caught.value.status == 400
    assert client.check_ranges(NS, stream, [R(0, 9)]) == [[]]


def test_moreRangesThanMaxBatch_isA413_andCommitsNothing(client: DedupClient) -> None:
    # The test agent runs with --max-batch 1000.
    stream = fresh("stream")
    with pytest.raises(DedupError) as caught:
        client.commit_ranges(NS, stream, [R(2 * k, 2 * k) for k in range(1001)])
    assert (caught.value.status, caught.value.error) == (413, "too_large")
    assert client.check_ranges(NS, stream, [R(0, 2000)]) == [[]]
    client.commit_ranges(NS, stream, [R(2 * k, 2 * k) for k in range(1000)])
    assert len(client.check_ranges(NS, stream, [R(0, 2000)])[0]) == 1000


@pytest.mark.parametrize(
    "ranges, error, message",
    [
        ([R(0, 1), (5, 4)], ValueError, r"ranges\[1\]: first 5 is after last 4"),
        ([(-1, 4)], ValueError, r"ranges\[0\]: first: -1 is negative"),
        ([("007x", "9")], ValueError, r"ranges\[0\]: first: '007x' is not an unsigned decimal number"),
        ([(" 7", "9")], ValueError, r"ranges\[0\]: first: ' 7'"),
        ([(1.0, 2)], TypeError, r"ranges\[0\]: first: expected a sequence number"),
        ([(0, None)], TypeError, r"ranges\[0\]: last: expected a sequence number"),
        ([(1, 2, 3)], TypeError, r"ranges\[0\]: expected SequenceRange"),
        ([5], TypeError, r"ranges\[0\]: expected SequenceRange"),
    ],
)
def test_whatIsNotARange_isRefusedBeforeSending(client: DedupClient, ranges, error, message: str) -> None:
    with pytest.raises(error, match=message):
        client.check_ranges(NS, "s", ranges)
    with pytest.raises(error, match=message):
        client.commit_ranges(NS, "s", ranges)


def test_aStreamOrNamespaceOfAnotherType_isATypeError(client: DedupClient) -> None:
    with pytest.raises(TypeError, match="stream: expected str"):
        client.check_ranges(NS, b"bytes", [R(0, 1)])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="ns: expected str"):
        client.commit_ranges(7, "s", [R(0, 1)])  # type: ignore[arg-type]


# --- SequenceRange -------------------------------------------------------------------------------------


def test_sequenceRange_isAValue() -> None:
    r = SequenceRange.of("12", "20")
    assert r == SequenceRange(12, 20) and hash(r) == hash(SequenceRange(12, 20))
    assert (r.first, r.last) == (12, 20)
    assert str(r) == "[12, 20]" and repr(r) == "SequenceRange(first=12, last=20)"
    assert r.contains(12) and r.contains("20") and not r.contains(21) and not r.contains(11)
    assert SequenceRange(0, 0).contains(0)
    with pytest.raises(AttributeError):
        r.first = 3  # type: ignore[misc]
    with pytest.raises(ValueError, match="first 3 is after last 2"):
        SequenceRange(3, 2)


def test_sequenceRange_after_startsOnePastThePreviousLast_orAtTheFirstRecord() -> None:
    assert SequenceRange.after(None, 100, 250) == SequenceRange(100, 250)
    assert SequenceRange.after(250, 300, 420) == SequenceRange(251, 420)
    assert SequenceRange.after(str(KINESIS), str(KINESIS + 7), str(KINESIS + 9)) == SequenceRange(
        KINESIS + 1, KINESIS + 9
    )
    with pytest.raises(ValueError, match="first 421 is after last 420"):
        SequenceRange.after(420, 421, 420)  # a batch that ends before the previous one did
