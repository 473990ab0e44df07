"""A stand-in for kafka-python's ``KafkaConsumer`` object alone, over in-memory partitions, for the tests of
the consumer loop that run without a broker (the loop, the client and the agent are the real ones)."""

from __future__ import annotations

from collections import namedtuple
from typing import Dict, List, Optional, Sequence

from dedup_client.kafka import TopicPartition

Record = namedtuple("Record", "topic partition offset timestamp key value headers")  # kafka-python's fields


class StandInConsumer:
    """Stands in for ``kafka.KafkaConsumer`` alone (same signatures for poll, seek, commit): in-memory
    partitions whose offsets are list indexes, a position per partition, and the last commit.

    ``seek_raises=True`` for a test in which nothing fails: a seek (the loop reading a poll again because its
    claim or its sink failed) raises, so that the test fails on that failure instead of waiting on the loop's
    retries for ever."""

    def __init__(self, logs: Dict[TopicPartition, List[Record]], *, seek_raises: bool = False) -> None:
        self.logs = logs
        self.seek_raises = seek_raises
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
        assert not self.seek_raises, f"the loop read {partition} again from {offset}: its claim or its sink failed"
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


class Drained(Exception):
    """Raised by :meth:`StandInConsumer.poll` once every record was read and committed, to end a loop that
    has no ``should_stop``."""


class DrainingConsumer(StandInConsumer):
    """A :class:`StandInConsumer` whose poll raises :class:`Drained` once everything is read and committed."""

    def poll(self, timeout_ms: int = 0, max_records: Optional[int] = None, update_offsets: bool = True):
        if self.at_end() and self.committed == self.positions:
            raise Drained()
        return super().poll(timeout_ms, max_records, update_offsets)
