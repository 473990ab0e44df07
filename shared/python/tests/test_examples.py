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
import itertools
from collections import Counter, namedtuple
from functools import partial
from typing import Dict, List, Optional, Sequence

import pytest

import kafka_consumer
import spark_dedup
from dedup_client import DedupClient, DedupError
from processes import free_port, fresh

Row = namedtuple("Row", "key partition offset value")
TopicPartition = namedtuple("TopicPartition", "topic partition")
Record = namedtuple("Record", "topic partition offset timestamp key value")


# --- PySpark: mapPartitions ------------------------------------------------------------------------


def kafka_rows(partition: int, keys: Sequence[str]) -> List[Row]:
    """Rows as Spark's Kafka source gives them: key bytes, partition, offset."""
    return [Row(k.encode(), partition, offset, f"v-{k}") for offset, k in enumerate(keys)]


def dedup(agent_url: str, **kwargs) -> partial:
    return partial(
        spark_dedup.dedup_partition,
        url=agent_url,
        ns="py-spark",
        id_of=lambda row: row.key.decode(),
        owner_of=lambda row: f"{row.partition}:{row.offset}",
        **kwargs,
    )


def test_spark_copiesInTwoPartitions_areKeptOnce(agent) -> None:
    keys = [fresh("msg") for _ in range(30)]
    p0 = kafka_rows(0, keys[:20])
    p1 = kafka_rows(1, keys[10:])  # keys[10:20] were written twice
    fn = dedup(agent.url, chunk_size=7)

    out = list(fn(iter(p0))) + list(fn(iter(p1)))

    assert Counter(r.key.decode() for r in out) == Counter(keys)
    assert out[:20] == p0 and out[20:] == p1[10:]


def test_spark_aRetriedTask_keepsItsRowsAgain_andTheOtherCopyStaysDropped(agent) -> None:
    keys = [fresh("msg") for _ in range(10)]
    p0, p1 = kafka_rows(0, keys), kafka_rows(1, keys)
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


def kafka_log(partition: int, keys: Sequence[str]) -> List[Record]:
    return [
        Record("clicks", partition, offset, 1_767_225_600_000 + offset, k.encode(), b"v") for offset, k in enumerate(keys)
    ]


def test_standIn_hasKafkaConsumersSignatures() -> None:
    kafka = pytest.importorskip("kafka", reason="kafka-python (Debian's python3-kafka) is not installed")
    for name in ("poll", "seek", "commit"):
        real = list(inspect.signature(getattr(kafka.KafkaConsumer, name)).parameters)
        assert list(inspect.signature(getattr(StandInConsumer, name)).parameters) == real, name
    assert set(Record._fields) <= set(kafka.consumer.fetcher.ConsumerRecord._fields)
    assert TopicPartition._fields == kafka.TopicPartition._fields


def test_kafka_copiesAreProcessedOnce_andEverythingIsCommitted(client: DedupClient) -> None:
    keys = [fresh("msg") for _ in range(15)]
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    consumer = StandInConsumer({p0: kafka_log(0, keys[:10]), p1: kafka_log(1, keys[5:])})
    processed: List[str] = []

    kafka_consumer.consume(
        consumer,
        client,
        "py-kafka",
        lambda r: processed.append(r.key.decode()),
        event_time=True,  # ts is sent; this namespace is not filed by event time, so the agent ignores it
        max_records=4,
        should_stop=consumer.at_end,
    )

    assert Counter(processed) == Counter(keys)
    assert consumer.committed == {p0: 10, p1: 10}


def test_kafka_aFailedProcess_releasesItsClaims_andReadsTheRecordAgain(client: DedupClient) -> None:
    keys = [fresh("msg") for _ in range(6)]
    tp = TopicPartition("clicks", 0)
    consumer = StandInConsumer({tp: kafka_log(0, keys)})
    attempts: Counter = Counter()
    processed: List[str] = []
    released_when_waiting: List[List[str]] = []

    def process(record) -> None:
        key = record.key.decode()
        attempts[key] += 1
        if key == keys[3] and attempts[key] == 1:
            raise RuntimeError("the database is down")
        processed.append(key)

    def sleep(seconds: float) -> None:
        assert seconds == 0.5
        assert consumer.committed == {tp: 3}  # the records before the failure, and no more
        # Released: the same owners claim them anew (the redelivery would answer retry otherwise).
        released_when_waiting.append(client.claim("py-kafka", [(keys[k], f"0:{k}") for k in (3, 4, 5)]))

    kafka_consumer.consume(
        consumer, client, "py-kafka", process, failure_backoff=0.5, should_stop=consumer.at_end, sleep=sleep
    )

    assert released_when_waiting == [["new", "new", "new"]]
    assert processed == keys
    assert attempts[keys[3]] == 2
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
