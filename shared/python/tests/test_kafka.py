"""``dedup_client.kafka.consume`` against the real agent, with a small stand-in for the ``KafkaConsumer`` object
alone (poll, seek, commit over in-memory partitions, with kafka-python's signatures); the agent, the client and
the loop are the real ones. With kafka-python's real ``KafkaConsumer`` and confluent-kafka's real ``Consumer``
against a real Kafka broker it is run by ``PythonConsumerPipelineIT`` in shared/examples.
"""

from __future__ import annotations

import inspect
import json
from collections import Counter
from typing import Dict, List

import pytest

from dedup_client import DedupClient, DedupError
from dedup_client.kafka import TopicPartition, consume, header, owner, value, where
from consumers import Record, StandInConsumer, kafka_log
from processes import free_port, fresh

def message_id(record) -> str:
    return dict(record.headers)["message-id"].decode()


class ListSink:
    """Keeps what it is given, as a sink's transaction would: the records and each partition's next offset."""

    def __init__(self) -> None:
        self.records: List[Record] = []
        self.offsets: Dict[TopicPartition, int] = {}
        self.calls = 0

    def __call__(self, records: List[Record], offsets: Dict[TopicPartition, int]) -> None:
        self.calls += 1
        self.records.extend(records)
        self.offsets.update(offsets)

    def ids(self) -> List[str]:
        return [message_id(r) for r in self.records]


def test_standIn_hasKafkaConsumersSignatures() -> None:
    kafka = pytest.importorskip("kafka", reason="kafka-python (Debian's python3-kafka) is not installed")
    for name in ("poll", "seek", "commit"):
        real = list(inspect.signature(getattr(kafka.KafkaConsumer, name)).parameters)
        assert list(inspect.signature(getattr(StandInConsumer, name)).parameters) == real, name
    assert set(Record._fields) <= set(kafka.consumer.fetcher.ConsumerRecord._fields)
    assert TopicPartition._fields == kafka.TopicPartition._fields
    assert TopicPartition("clicks", 3) == kafka.TopicPartition("clicks", 3)
    assert hash(TopicPartition("clicks", 3)) == hash(kafka.TopicPartition("clicks", 3))


def test_copiesAreWrittenOnce_withEachPartitionsNextOffset_andEverythingIsCommitted(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(15)]
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    consumer = StandInConsumer({p0: kafka_log(0, ids[:10]), p1: kafka_log(1, ids[5:])})
    sink = ListSink()

    consume(
        consumer,
        "py-kafka",
        sink,
        client=client,
        event_time=True,  # ts is sent; this namespace is not filed by event time, so the agent ignores it
        max_records=4,
        should_stop=consumer.at_end,
    )

    assert Counter(sink.ids()) == Counter(ids)
    assert sink.offsets == {p0: 10, p1: 10} == consumer.committed


def test_aPollOfDuplicatesOnly_stillGivesTheSinkItsOffsets(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(3)]
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    consumer = StandInConsumer({p0: kafka_log(0, ids)})
    consume(consumer, "py-kafka", ListSink(), client=client, should_stop=consumer.at_end)
    consumer = StandInConsumer({p1: kafka_log(1, ids)})
    sink = ListSink()

    consume(consumer, "py-kafka", sink, client=client, should_stop=consumer.at_end)

    assert sink.records == [] and sink.offsets == {p1: 3} and consumer.committed == {p1: 3}


def test_aFailingSink_releasesTheClaims_andReadsThePollAgain(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(6)]
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    consumer = StandInConsumer({p0: kafka_log(0, ids[:3]), p1: kafka_log(1, ids[3:])})
    written = ListSink()
    released_when_waiting: List[List[str]] = []

    def sink(records, offsets) -> None:
        if written.calls == 0 and not released_when_waiting:
            raise RuntimeError("the database is down")
        written(records, offsets)

    def sleep(seconds: float) -> None:
        assert seconds == 0.5
        assert consumer.committed == {} and consumer.positions == {p0: 0, p1: 0}  # sought back, nothing committed
        # Released: the same owners claim them anew (the redelivery would answer retry otherwise).
        owners = [owner(r) for r in kafka_log(0, ids[:3]) + kafka_log(1, ids[3:])]
        released_when_waiting.append(client.claim("py-kafka", list(zip(ids, owners))))
        client.release("py-kafka", list(zip(ids, owners)))

    consume(consumer, "py-kafka", sink, client=client, failure_backoff=0.5, should_stop=consumer.at_end, sleep=sleep)

    assert released_when_waiting == [["new"] * 6]
    assert sorted(written.ids()) == sorted(ids) and written.calls == 1
    assert consumer.committed == {p0: 3, p1: 3}


def test_anAgentThatCannotDecide_writesNothing_andReadsTheBatchAgain() -> None:
    tp = TopicPartition("clicks", 0)
    consumer = StandInConsumer({tp: kafka_log(0, ["a", "b", "c"])})
    sink = ListSink()
    waits: List[float] = []

    consume(
        consumer,
        "py-kafka",
        sink,
        client=DedupClient(f"http://127.0.0.1:{free_port()}"),
        should_stop=lambda: consumer.polls == 3,
        sleep=waits.append,
    )

    assert sink.calls == 0
    assert consumer.positions == {tp: 0} and consumer.committed == {}
    assert waits == [1.0, 1.0, 1.0]


def test_withoutAClient_theAgentIsTheEnvironments(agent, monkeypatch) -> None:
    monkeypatch.setenv("DEDUP_URL", agent.url)
    tp = TopicPartition("clicks", 4)
    consumer = StandInConsumer({tp: kafka_log(4, [fresh("msg")])})
    sink = ListSink()
    consume(consumer, "py-kafka", sink, should_stop=consumer.at_end)
    assert len(sink.records) == 1 and consumer.committed == {tp: 1}


def test_theRecordsTimestamp_isSentAsItsEventSecond_byDefault_andNoneWithoutOne() -> None:
    from dedup_client.kafka import _item

    def read(r: Record) -> str:
        return header(r, "message-id")

    stamped, unstamped, unknown = (
        Record("clicks", 3, 1042, ts, b"user-7", b"v", [("message-id", b"m-1")]) for ts in (1_767_225_600_999, -1, None)
    )
    assert _item(stamped, read, True).ts == 1_767_225_600
    assert _item(unstamped, read, True).ts is None, "kafka-python's -1: no timestamp"
    assert _item(unknown, read, True).ts is None
    assert _item(stamped, read, False).ts is None
    assert inspect.signature(consume).parameters["event_time"].default is True


def test_claimsWithKafkaOwner_soAReadOfTheSameRecordIsRetry(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(3)]
    tp = TopicPartition("clicks", 2)
    consumer = StandInConsumer({tp: kafka_log(2, ids)})

    consume(consumer, "py-kafka", ListSink(), client=client, should_stop=consumer.at_end)

    assert client.claim("py-kafka", [(ids[1], "clicks:2:1")]) == ["retry"]
    assert client.claim("py-kafka", [(ids[1], "2:1")]) == ["duplicate"]  # an owner written another way


def test_aCopyInAnotherTopic_atTheSamePartitionAndOffset_isADuplicate(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(4)]
    clicks, retries = TopicPartition("clicks", 0), TopicPartition("clicks-retry", 0)
    consumer = StandInConsumer({clicks: kafka_log(0, ids), retries: kafka_log(0, ids[2:], topic="clicks-retry")})
    sink = ListSink()

    consume(consumer, "py-kafka", sink, client=client, should_stop=consumer.at_end)

    assert Counter(sink.ids()) == Counter(ids)
    assert sink.offsets == {clicks: 4, retries: 2}


def test_theIdFromAnotherHeader_orFromTheValue(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(3)]
    tp = TopicPartition("clicks", 0)
    records = [r._replace(headers=[("trace", b"t"), ("event-id", i.encode())]) for r, i in zip(kafka_log(0, ids), ids)]
    sink = ListSink()
    consumer = StandInConsumer({tp: records + [records[0]._replace(offset=3)]})  # the first written twice
    consume(consumer, "py-kafka", sink, client=client, id_header="event-id", should_stop=consumer.at_end)
    assert [r.offset for r in sink.records] == [0, 1, 2]

    in_value = [r._replace(value=f'{{"id": "{i}"}}'.encode(), headers=[]) for r, i in zip(kafka_log(1, ids), ids)]
    consumer = StandInConsumer({TopicPartition("clicks", 1): in_value})
    sink = ListSink()
    consume(
        consumer,
        "py-kafka",
        sink,
        client=client,
        id_of=lambda r: json.loads(r.value)["id"],
        should_stop=consumer.at_end,
    )
    assert sink.records == []  # the same ids, claimed above from their headers: copies


def test_aRecordWithoutTheIdHeader_stopsTheLoop_sayingWhere_beforeTheSinkGetsAnything(client: DedupClient) -> None:
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    log = kafka_log(1, [fresh("msg"), fresh("msg")])
    log[1] = log[1]._replace(headers=[("message-id", b"")])
    consumer = StandInConsumer({p0: kafka_log(0, [fresh("msg")]), p1: log})
    sink = ListSink()

    with pytest.raises(ValueError, match="^the record at clicks:1:1 has no \\(or an empty\\) header message-id: "):
        consume(consumer, "py-kafka", sink, client=client, should_stop=consumer.at_end)
    assert sink.calls == 0 and consumer.committed == {}
    with pytest.raises(ValueError, match="clicks:1:0 has no"):
        header(log[0]._replace(headers=None), "message-id")
    twice = log[0]._replace(headers=[("message-id", b"a"), ("message-id", b"b")])
    assert header(twice, "message-id") == "b"  # the last, as dict() and Java's lastHeader take it


def test_aConsumerOfNeitherLibrary_isATypeError() -> None:
    with pytest.raises(TypeError, match="^consumer: a kafka.KafkaConsumer or a confluent_kafka.Consumer, got list"):
        consume([], "py-kafka", ListSink(), client=DedupClient())


def test_aClaimTheAgentRejects_raises_andNothingReachesTheSink(client: DedupClient) -> None:
    too_long = "x" * 600  # the contract takes ids of up to 512 bytes: a 400, which no retry changes
    p0 = TopicPartition("clicks", 0)
    consumer = StandInConsumer({p0: kafka_log(0, [fresh("msg"), too_long])})
    sink = ListSink()

    with pytest.raises(DedupError) as raised:
        consume(consumer, "py-kafka", sink, client=client, should_stop=lambda: consumer.polls >= 5, sleep=lambda s: None)

    assert raised.value.rejected and raised.value.status == 400
    assert sink.calls == 0


def test_aSinkThatKeepsFailing_waitsLongerEachTime_upToTheLongest(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(4)]
    p0 = TopicPartition("clicks", 0)
    consumer = StandInConsumer({p0: kafka_log(0, ids)})
    written = ListSink()
    failures = [5]
    waits: List[float] = []

    def sink(records, offsets) -> None:
        if failures[0] > 0:
            failures[0] -= 1
            raise RuntimeError("the database is down")
        written(records, offsets)

    consume(consumer, "py-kafka", sink, client=client, failure_backoff=0.5, max_failure_backoff=3.0,
            should_stop=consumer.at_end, sleep=waits.append)  # fmt: skip

    assert waits == [0.5, 1.0, 2.0, 3.0, 3.0]  # doubled after each failure in a row, never past the longest
    assert sorted(written.ids()) == sorted(ids) and consumer.committed == {p0: 4}


def test_onVerdicts_getsEachPartitionsVerdicts_inOrder(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(3)]
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    consumer = StandInConsumer({p0: kafka_log(0, ids), p1: kafka_log(1, ids[:1])})
    seen: List[List[str]] = []
    consume(consumer, "py-kafka", ListSink(), client=client, on_verdicts=seen.append, should_stop=consumer.at_end)
    assert sorted(seen) == sorted([["new", "new", "new"], ["duplicate"]])


def test_whereAndValue_readARecordOfEitherLibrary() -> None:
    record = kafka_log(2, ["a", "b"])[1]
    assert where(record) == (TopicPartition("clicks", 2), 1)
    assert value(record) == record.value

    class Message:  # confluent-kafka's Message: methods, not attributes
        def topic(self) -> str:
            return "orders"

        def partition(self) -> int:
            return 3

        def offset(self) -> int:
            return 41

        def timestamp(self):
            return (1, 1_700_000_000_000)

        def headers(self):
            return [("message-id", b"x")]

        def value(self) -> bytes:
            return b"{}"

    assert where(Message()) == (TopicPartition("orders", 3), 41)
    assert value(Message()) == b"{}"
    with pytest.raises(ValueError, match="or consume\\(\\.\\.\\., id_of=\\.\\.\\.\\) must read it from the record"):
        header(Message(), "other-header")
