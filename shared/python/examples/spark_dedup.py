"""Dropping duplicate messages in a PySpark job: a function for ``RDD.mapPartitions``.

Each partition is claimed chunk by chunk at the agent beside the executor, and only the rows whose
verdict is not ``duplicate`` go on::

    from functools import partial
    from dedup_client import kafka_owner
    from spark_dedup import dedup_partition

    df = spark.read.format("kafka").option("subscribe", "clicks").option("includeHeaders", "true").load()
    unique = df.rdd.mapPartitions(partial(
        dedup_partition,
        ns="clicks",
        id_of=lambda row: dict(row.headers)["message-id"].decode(),  # the producer's id, never row.key
        owner_of=lambda row: kafka_owner(row.topic, row.partition, row.offset),
    ))

The id is where the producer put it (a header, a field of the value), never the Kafka record key: in
most topics the key is a partitioning key (a user, a device), and claiming it would drop every second
event of a key. The owner is written by the ``dedup_client`` function of the source (``kafka_owner``,
``kinesis_owner``, ...), so that every worker of the namespace writes it alike.

The agent is the executor's own, as its pod template tells it: ``DEDUP_URL`` (default
``http://127.0.0.1:7070``) and ``DEDUP_TOKEN`` when the agent has a token; ``url`` and ``token`` override them.

Why it is safe to re-run: a task that dies after claiming is run again by Spark and re-reads the same
rows with the same owners, so its claims answer ``retry`` and its rows are kept again; the other copy of
a message (another offset, so another owner) answers ``duplicate`` and is dropped, whichever task runs
first. When the agent cannot decide, :class:`dedup_client.DedupError` fails the task, and Spark's retry of
it is the retry of the claim: no row is dropped without a verdict.

Tested how: PySpark cannot be installed on the machines this project builds on (no Python package
index, and Debian does not package it), so the tests run this same function over plain iterators, the
way ``mapPartitions`` calls it, against the real agent (``tests/test_examples.py``), and in a process given
nothing but ``DEDUP_URL`` and ``DEDUP_TOKEN`` (``tests/test_environment.py``; ``ExecutorPodIT`` of deploy/
does the same in a container beside the agent, both as the executor pod template starts them). Nothing here
imports ``pyspark``.
"""

from __future__ import annotations

import itertools
import threading
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple, TypeVar

from dedup_client import DedupClient, Item, Verdict

Row = TypeVar("Row")

_clients: Dict[Tuple[Optional[str], Optional[str], float], DedupClient] = {}
_clients_lock = threading.Lock()


def dedup_partition(
    rows: Iterable[Row],
    *,
    url: Optional[str] = None,
    ns: str,
    id_of: Callable[[Row], str],
    owner_of: Callable[[Row], str],
    ts_of: Optional[Callable[[Row], int]] = None,
    chunk_size: int = 1000,
    token: Optional[str] = None,
    timeout: float = DedupClient.DEFAULT_TIMEOUT,
    on_verdicts: Optional[Callable[[List[Verdict]], None]] = None,
) -> Iterator[Row]:
    """Yields the rows of one partition that are not duplicates, in order, claiming ``chunk_size`` at a time.

    Args:
        rows: The partition, as ``mapPartitions`` passes it.
        url: The agent beside the executor; ``None``: ``DEDUP_URL``, else ``http://127.0.0.1:7070``.
        ns: The namespace to claim in.
        id_of: A row's message id (the producer's transaction id, from a header or a field; not a key).
        owner_of: Where this copy of the row was read from: :func:`dedup_client.kafka_owner` of a Kafka
            row, :func:`dedup_client.kinesis_owner` of a Kinesis record. It must be the same when the task
            is re-run, and differ between copies of a message.
        ts_of: A row's event time in epoch seconds, for a namespace the agent files by event time.
        chunk_size: Rows per claim, at most the agent's ``max-batch``.
        token: The agent's ``--token``; ``None``: ``DEDUP_TOKEN``, when set.
        timeout: Seconds a socket operation may take.
        on_verdicts: Called with each chunk's verdicts, in order (e.g. to count them in accumulators).

    Yields:
        Each row answered ``new`` or ``retry``.

    Raises:
        dedup_client.DedupError: When a chunk gets no verdicts; the rows yielded before were claimed.
            Let it fail the task: Spark runs it again and the claims made so far answer ``retry``.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size: must be at least 1, got {chunk_size}")
    client = _client(url, token, timeout)
    it = iter(rows)
    while True:
        chunk: List[Row] = list(itertools.islice(it, chunk_size))
        if not chunk:
            return
        items = [Item(id_of(r), owner_of(r), ts_of(r) if ts_of is not None else None) for r in chunk]
        verdicts = client.claim(ns, items)
        if on_verdicts is not None:
            on_verdicts(verdicts)
        for row, verdict in zip(chunk, verdicts):
            if verdict != Verdict.DUPLICATE:
                yield row


def _client(url: Optional[str], token: Optional[str], timeout: float) -> DedupClient:
    """One client per executor process and agent: PySpark reuses its Python workers across tasks."""
    key = (url, token, timeout)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = DedupClient(url, token=token, timeout=timeout)
        return client
