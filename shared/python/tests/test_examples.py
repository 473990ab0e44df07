"""The README's examples, run against the real agent.

- ``spark_dedup.dedup_partition`` over plain iterators, as ``RDD.mapPartitions`` calls it: PySpark cannot
  be installed here (no Python package index; Debian does not package it).
- ``kafka_consumer.consume`` with a small stand-in for the ``KafkaConsumer`` object alone (poll, seek,
  commit over in-memory partitions); the agent, the client and the loop are the real ones. With
  kafka-python's real ``KafkaConsumer`` against a real Kafka broker it is run by
  ``PythonConsumerPipelineIT`` in shared/examples.
"""

from __future__ import annotations

import inspect
import json
import itertools
from collections import Counter, namedtuple
from functools import partial
from typing import Dict, List, Optional, Sequence

import pytest

import kafka_consumer
import spark_dedup
from dedup_client import DedupClient, DedupError, kafka_owner
from processes import free_port, fresh

Row = namedtuple("Row", "key value topic partition offset headers")
Header = namedtuple("Header", "key value")  # as Spark's Row(key=..., value=...) of the headers column
TopicPartition = namedtuple("TopicPartition", "topic partition")
Record = namedtuple("Record", "topic partition offset timestamp key value headers")


def message_id(row) -> str:
    return dict(row.headers)["message-id"].decode()


# --- PySpark: mapPartitions ------------------------------------------------------------------------


def kafka_rows(partition: int, ids: Sequence[str]) -> List[Row]:
    """Rows as Spark's Kafka source read with includeHeaders gives them: the id in the message-id header,
    the key a user shared by many messages (the record key is not the id)."""
    return [
        Row(b"user-7", f"v-{i}".encode(), "clicks", partition, offset, [Header("message-id", bytearray(i.encode()))])
        for offset, i in enumerate(ids)
    ]


def dedup(agent_url: str, **kwargs) -> partial:
    """As spark_dedup's docstring has it."""
    return partial(
        spark_dedup.dedup_partition,
        url=agent_url,
        ns="py-spark",
        id_of=lambda row: dict(row.headers)["message-id"].decode(),
        owner_of=lambda row: kafka_owner(row.topic, row.partition, row.offset),
        **kwargs,
    )


def test_spark_copiesInTwoPartitions_areKeptOnce_andOneKeyIsNotOneMessage(agent) -> None:
    ids = [fresh("msg") for _ in range(30)]
    p0 = kafka_rows(0, ids[:20])
    p1 = kafka_rows(1, ids[10:])  # ids[10:20] were written twice; every row has the same key
    fn = dedup(agent.url, chunk_size=7)

    out = list(fn(iter(p0))) + list(fn(iter(p1)))

    assert Counter(message_id(r) for r in out) == Counter(ids)
    assert out[:20] == p0 and out[20:] == p1[10:]


def test_spark_aRetriedTask_keepsItsRowsAgain_andTheOtherCopyStaysDropped(agent) -> None:
    ids = [fresh("msg") for _ in range(10)]
    p0, p1 = kafka_rows(0, ids), kafka_rows(1, ids)
    fn = dedup(agent.url)

    first = list(itertools.islice(fn(iter(p0)), 4))  # the task dies after 4 rows...
    again = list(fn(iter(p0)))  # ...and Spark runs it again: its claims answer retry
    copies = list(fn(iter(p1)))

    assert first == p0[:4] and again == p0
    assert copies == []


def test_spark_claimsAChunkAtATime(agent, monkeypatch) -> None:
    sizes: List[int] = []
    real = DedupClient.claim

    def counting(self, ns, items):
        items = list(items)
        sizes.append(len(items))
        return real(self, ns, items)

    monkeypatch.setattr(DedupClient, "claim", counting)
    rows = kafka_rows(0, [fresh() for _ in range(10)])
    assert list(dedup(agent.url, chunk_size=4)(iter(rows))) == rows
    assert sizes == [4, 4, 2]
    assert list(dedup(agent.url)(iter([]))) == []


def test_spark_anAgentThatCannotDecide_failsTheTask() -> None:
    fn = dedup(f"http://127.0.0.1:{free_port()}")
    with pytest.raises(DedupError) as caught:
        list(fn(iter(kafka_rows(0, ["a", "b"]))))
    assert caught.value.error == DedupError.UNREACHABLE


# --- Kafka: the consumer loop ----------------------------------------------------------------------


class StandInConsumer:
    """Stands in for ``kafka.KafkaConsumer`` alone (same signatures for poll, seek, commit): in-memory
    partitions whose offsets are list indexes, a position per partition, and the last commit."""

    def __init__(self, logs: Dict[TopicPartition, List[Record]]) -> None:
        self.logs = logs
        self.positions = {tp: 0 for tp in logs}
        self.committed: Dict[TopicPartition, int] = {}
        self.polls = 0

    def poll(self, timeout_ms: int = 0, max_records: Optional[int] = None, update_offsets: bool = True):
        self.polls += 1
        budget = max_records if max_records is not None else 1 << 30
        out = {}
        for tp, log in self.logs.items():
            take = log[self.positions[tp] : self.positions[tp] + budget]
            if take:
                out[tp] = take
                self.positions[tp] = take[-1].offset + 1
                budget -= len(take)
            if budget == 0:
                break
        return out

    def seek(self, partition: TopicPartition, offset: int) -> None:
        self.positions[partition] = offset

    def commit(self, offsets=None) -> None:
        assert offsets is None, "the loop commits the consumed positions"
        self.committed = dict(self.positions)

    def at_end(self) -> bool:
        return all(self.positions[tp] == len(log) for tp, log in self.logs.items())


def kafka_log(partition: int, ids: Sequence[str], topic: str = "clicks") -> List[Record]:
    """Records as kafka-python gives them: the id in the message-id header, the key a user's."""
    return [
        Record(topic, partition, offset, 1_767_225_600_000 + offset, b"user-7", b"v", [("message-id", i.encode())])
        for offset, i in enumerate(ids)
    ]


def test_standIn_hasKafkaConsumersSignatures() -> None:
    kafka = pytest.importorskip("kafka", reason="kafka-python (Debian's python3-kafka) is not installed")
    for name in ("poll", "seek", "commit"):
        real = list(inspect.signature(getattr(kafka.KafkaConsumer, name)).parameters)
        assert list(inspect.signature(getattr(StandInConsumer, name)).parameters) == real, name
    assert set(Record._fields) <= set(kafka.consumer.fetcher.ConsumerRecord._fields)
    assert TopicPartition._fields == kafka.TopicPartition._fields


def test_kafka_copiesAreProcessedOnce_andEverythingIsCommitted(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(15)]
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    consumer = StandInConsumer({p0: kafka_log(0, ids[:10]), p1: kafka_log(1, ids[5:])})
    processed: List[str] = []

    kafka_consumer.consume(
        consumer,
        client,
        "py-kafka",
        lambda r: processed.append(message_id(r)),
        event_time=True,  # ts is sent; this namespace is not filed by event time, so the agent ignores it
        max_records=4,
        should_stop=consumer.at_end,
    )

    assert Counter(processed) == Counter(ids)
    assert consumer.committed == {p0: 10, p1: 10}


def test_kafka_aFailedProcess_releasesItsClaims_andReadsTheRecordAgain(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(6)]
    tp = TopicPartition("clicks", 0)
    consumer = StandInConsumer({tp: kafka_log(0, ids)})
    attempts: Counter = Counter()
    processed: List[str] = []
    released_when_waiting: List[List[str]] = []

    def process(record) -> None:
        id_ = message_id(record)
        attempts[id_] += 1
        if id_ == ids[3] and attempts[id_] == 1:
            raise RuntimeError("the database is down")
        processed.append(id_)

    def sleep(seconds: float) -> None:
        assert seconds == 0.5
        assert consumer.committed == {tp: 3}  # the records before the failure, and no more
        # Released: the same owners claim them anew (the redelivery would answer retry otherwise).
        released_when_waiting.append(client.claim("py-kafka", [(ids[k], f"clicks:0:{k}") for k in (3, 4, 5)]))

    kafka_consumer.consume(
        consumer, client, "py-kafka", process, failure_backoff=0.5, should_stop=consumer.at_end, sleep=sleep
    )

    assert released_when_waiting == [["new", "new", "new"]]
    assert processed == ids
    assert attempts[ids[3]] == 2
    assert consumer.committed == {tp: 6}


def test_kafka_anAgentThatCannotDecide_processesNothing_andReadsTheBatchAgain() -> None:
    tp = TopicPartition("clicks", 0)
    consumer = StandInConsumer({tp: kafka_log(0, ["a", "b", "c"])})
    processed: List[object] = []
    waits: List[float] = []

    kafka_consumer.consume(
        consumer,
        DedupClient(f"http://127.0.0.1:{free_port()}"),
        "py-kafka",
        processed.append,
        should_stop=lambda: consumer.polls == 3,
        sleep=waits.append,
    )

    assert processed == []
    assert consumer.positions == {tp: 0} and consumer.committed == {tp: 0}
    assert waits == [1.0, 1.0, 1.0]


def test_kafka_claimsWithKafkaOwner_soAReadOfTheSameRecordIsRetry(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(3)]
    tp = TopicPartition("clicks", 2)
    consumer = StandInConsumer({tp: kafka_log(2, ids)})

    kafka_consumer.consume(consumer, client, "py-kafka", lambda r: None, should_stop=consumer.at_end)

    assert client.claim("py-kafka", [(ids[1], "clicks:2:1")]) == ["retry"]
    assert client.claim("py-kafka", [(ids[1], "2:1")]) == ["duplicate"]  # an owner written another way


def test_kafka_aCopyInAnotherTopic_atTheSamePartitionAndOffset_isADuplicate(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(4)]
    clicks, retries = TopicPartition("clicks", 0), TopicPartition("clicks-retry", 0)
    consumer = StandInConsumer({clicks: kafka_log(0, ids), retries: kafka_log(0, ids[2:], topic="clicks-retry")})
    processed: List[str] = []

    kafka_consumer.consume(
        consumer, client, "py-kafka", lambda r: processed.append(message_id(r)), should_stop=consumer.at_end
    )

    assert Counter(processed) == Counter(ids)


def test_kafka_theIdFromAnotherHeader_orFromTheValue(client: DedupClient) -> None:
    ids = [fresh("msg") for _ in range(3)]
    tp = TopicPartition("clicks", 0)
    records = [r._replace(headers=[("trace", b"t"), ("event-id", i.encode())]) for r, i in zip(kafka_log(0, ids), ids)]
    processed: List[str] = []
    consumer = StandInConsumer({tp: records + [records[0]._replace(offset=3)]})  # the first written twice
    kafka_consumer.consume(
        consumer,
        client,
        "py-kafka",
        lambda r: processed.append(r.offset),
        id_header="event-id",
        should_stop=consumer.at_end,
    )
    assert processed == [0, 1, 2]

    in_value = [r._replace(value=f'{{"id": "{i}"}}'.encode(), headers=[]) for r, i in zip(kafka_log(1, ids), ids)]
    consumer = StandInConsumer({TopicPartition("clicks", 1): in_value})
    processed.clear()
    kafka_consumer.consume(
        consumer,
        client,
        "py-kafka",
        lambda r: processed.append(r.offset),
        id_of=lambda r: json.loads(r.value)["id"],
        should_stop=consumer.at_end,
    )
    assert processed == []  # the same ids, claimed above from their headers: copies


def test_kafka_aRecordWithoutTheIdHeader_stopsTheLoop_sayingWhere(client: DedupClient) -> None:
    tp = TopicPartition("clicks", 0)
    log = kafka_log(0, [fresh("msg"), fresh("msg")])
    log[1] = log[1]._replace(headers=[("message-id", b"")])
    consumer = StandInConsumer({tp: log})
    processed: List[object] = []

    with pytest.raises(ValueError, match="^the record at clicks:0:1 has no \\(or an empty\\) header message-id: "):
        kafka_consumer.consume(consumer, client, "py-kafka", processed.append, should_stop=consumer.at_end)
    assert processed == [] and consumer.committed == {}
    with pytest.raises(ValueError, match="clicks:0:0 has no"):
        kafka_consumer.header(log[0]._replace(headers=None), "message-id")
    twice = log[0]._replace(headers=[("message-id", b"a"), ("message-id", b"b")])
    assert kafka_consumer.header(twice, "message-id") == "b"  # the last, as dict() and Java's lastHeader take it
