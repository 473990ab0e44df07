"""Claiming messages in PySpark and keeping the rows to process: DataFrame transforms, and the partition functions
under them.

On a DataFrame of any schema, batch or inside ``foreachBatch``::

    from dedup_client.spark import claim_and_keep

    def write_batch(batch, batch_id):
        claim_and_keep(batch, "clicks").write.mode("append").parquet("s3://bucket/clicks")

By default the id is the Kafka ``message-id`` header (read the source with ``includeHeaders``) and the owner
is :func:`dedup_client.kafka_owner` of the ``topic``, ``partition`` and ``offset`` columns; ``id_col``,
``owner="kinesis"``, :class:`KafkaColumns`, :class:`KinesisColumns` and ``owner_col`` say otherwise.
:func:`with_verdicts` keeps every row and adds its verdict as a string column. The columns are checked on
the driver, before any task runs: a missing one is a ``ValueError`` that names it.

Each partition is claimed ``chunk_size`` rows at a time at the agent beside the executor (``DEDUP_URL``,
default ``http://127.0.0.1:7070``, and ``DEDUP_TOKEN``, as the executor pod template gives them; ``url``
and ``token`` override them). A call the agent does not answer (no connection, a timeout, a 503) is sent
again with the same items, 50 ms apart doubling to 1 s (or a 503's ``Retry-After``), for ``patience``
seconds (:class:`dedup_client.Claims`); then its :class:`dedup_client.DedupError` fails the task, and
Spark's retry of the task is the retry of the claim. A 4xx fails the task at once. No row is dropped without a ``duplicate`` verdict.

Why a re-run is safe: a task that dies after claiming is run again and re-reads the same rows with the same
owners, so its claims answer ``retry`` and its rows are kept again; the other copy of a message (another
offset, so another owner) answers ``duplicate`` and is dropped, whichever task runs first.

PySpark is imported only by :func:`claim_and_keep` and :func:`with_verdicts`, so ``import dedup_client``
needs none. They work on classic PySpark 3.5 and 4 (``df.rdd.mapPartitions``, then
``createDataFrame`` with the input's schema, plus the verdict's column); Spark Connect has no RDDs.

Tested how: PySpark cannot be installed where this package is built and tested (no Python package index,
and Debian does not package it), and it has not been run under PySpark. What runs in the tests, against the
real agent: :func:`claim_partition` and :func:`dedup_partition` over plain iterators, as ``mapPartitions``
calls them; and everything the DataFrame functions do between the driver and the rows, which is pure Python
in :class:`dedup_client._columns.RowClaims` and :func:`verdict_rows`: the column checks (on the schema as
``{column: type}``), reading ids, owners and event times from rows (``dict`` rows, as ``Row[name]`` reads
them), and the output rows with their verdict. Not run: the few lines below that call PySpark itself
(``df.schema``, ``df.rdd.mapPartitions``, ``createDataFrame``).
"""

from __future__ import annotations

import itertools
import threading
from functools import partial
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, TypeVar

from ._claims import Claims
from ._client import DedupClient
from ._columns import ID_HEADER, KafkaColumns, KinesisColumns, Owner, RowClaims
from ._types import Item, Verdict

__all__ = [
    "ID_HEADER",
    "VERDICT_COL",
    "KafkaColumns",
    "KinesisColumns",
    "claim_partition",
    "dedup_partition",
    "claim_and_keep",
    "verdict_rows",
    "with_verdicts",
]

Row = TypeVar("Row")

#: The column :func:`with_verdicts` adds unless told otherwise.
VERDICT_COL = "dedup_verdict"

_clients: Dict[Tuple[Optional[str], Optional[str], float], DedupClient] = {}
_clients_lock = threading.Lock()


def claim_partition(
    rows: Iterable[Row],
    *,
    ns: str,
    id_of: Callable[[Row], Any],
    owner_of: Callable[[Row], str],
    ts_of: Optional[Callable[[Row], int]] = None,
    chunk_size: int = 1000,
    url: Optional[str] = None,
    token: Optional[str] = None,
    timeout: float = DedupClient.DEFAULT_TIMEOUT,
    patience: float = Claims.DEFAULT_PATIENCE,
    on_verdicts: Optional[Callable[[List[Verdict]], None]] = None,
) -> Iterator[Tuple[Row, Verdict]]:
    """Yields each row of one partition with its verdict, in order, claiming ``chunk_size`` rows at a time.

    Args:
        rows: The partition, as ``mapPartitions`` passes it.
        ns: The namespace to claim in.
        id_of: A row's message id (the producer's, from a header or a field; never a partitioning key).
        owner_of: Where this copy of the row was read from: :func:`dedup_client.kafka_owner` of a Kafka row,
            :func:`dedup_client.kinesis_owner` of a Kinesis record. The same when the task is re-run, and
            different between copies of a message.
        ts_of: A row's event time in epoch seconds, for a namespace the agent files by event time.
        chunk_size: Rows per claim, at most the agent's ``max-batch``.
        url: The agent beside the executor; ``None``: ``DEDUP_URL``, else ``http://127.0.0.1:7070``.
        token: The agent's ``--token``; ``None``: ``DEDUP_TOKEN``, when set.
        timeout: Seconds a socket operation may take.
        patience: Seconds to keep sending a chunk the agent does not answer (:class:`dedup_client.Claims`).
        on_verdicts: Called with each chunk's verdicts, in order (to count them in accumulators).

    Raises:
        dedup_client.DedupError: When a chunk got no verdicts within ``patience`` (at once for a 4xx); the
            rows yielded before were claimed. Let it fail the task: Spark runs it again, and the claims made
            so far answer ``retry``.
        ValueError: When a row has no id (``id_of`` raises it), or ``chunk_size`` is below 1.
    """
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size: must be a whole number >= 1, got {chunk_size!r}")
    claims = Claims(_client(url, token, timeout), ns, patience)
    it = iter(rows)
    while True:
        chunk: List[Row] = list(itertools.islice(it, chunk_size))
        if not chunk:
            return
        items = [Item(id_of(r), owner_of(r), ts_of(r) if ts_of is not None else None) for r in chunk]
        verdicts = claims.claim(items)
        if on_verdicts is not None:
            on_verdicts(verdicts)
        yield from zip(chunk, verdicts)


def dedup_partition(rows: Iterable[Row], **claiming: Any) -> Iterator[Row]:
    """Yields the rows of one partition that are not duplicates (``new`` or ``retry``), in order.

    Takes the keywords of :func:`claim_partition`::

        unique = df.rdd.mapPartitions(partial(dedup_partition, ns="clicks", id_of=..., owner_of=...))
    """
    for row, verdict in claim_partition(rows, **claiming):
        if verdict != Verdict.DUPLICATE:
            yield row


def verdict_rows(rows: Iterable[Any], **claiming: Any) -> Iterator[Tuple[Any, ...]]:
    """Each row of one partition as a tuple of its values followed by its verdict's string (``"new"``...):
    the rows :func:`with_verdicts` makes. Takes the keywords of :func:`claim_partition`."""
    for row, verdict in claim_partition(rows, **claiming):
        yield (*row, verdict.value)


def claim_and_keep(
    df: Any,
    ns: str,
    *,
    id_header: Optional[str] = ID_HEADER,
    id_col: Optional[str] = None,
    owner: Owner = "kafka",
    owner_col: Optional[str] = None,
    event_time_col: Optional[str] = None,
    source_event_time: bool = True,
    chunk_size: int = 1000,
    url: Optional[str] = None,
    token: Optional[str] = None,
    timeout: float = DedupClient.DEFAULT_TIMEOUT,
    patience: float = Claims.DEFAULT_PATIENCE,
    on_verdicts: Optional[Callable[[List[Verdict]], None]] = None,
) -> Any:
    """Claims every row of ``df`` and keeps those answered ``new`` or ``retry`` (this owner's to process again),
    with ``df``'s schema. Not PySpark's ``dropDuplicates``: it keeps no state in the query, it claims.

    Args:
        df: A ``pyspark.sql.DataFrame``, not a streaming one: in a stream, call it in ``foreachBatch``.
        ns: The namespace to claim in.
        id_header: The Kafka header the producer puts the message id in (the ``headers`` column, there when
            the source was read with ``option("includeHeaders", "true")``); the last one of that name.
        id_col: A column holding the message id instead (string, binary, or an integer); never the record
            key, which in most topics is a partitioning key shared by many messages.
        owner: ``"kafka"`` (``topic``, ``partition``, ``offset``), ``"kinesis"`` (``stream``, ``shardId``,
            ``sequenceNumber``), or :class:`KafkaColumns` / :class:`KinesisColumns` naming other columns.
        owner_col: A string column holding the owner already, written by the source's ``dedup_client``
            function; wins over ``owner``.
        event_time_col: A timestamp column (or whole epoch seconds) sent as the event time: the agent counts
            each claim's window from it on the namespace's event clock, so a job that falls behind keeps its
            claims. ``None`` (the default): the source's own, see ``source_event_time``.
        source_event_time: Without ``event_time_col``, send the source's timestamp as the event time: the
            Kafka source's ``timestamp`` with the Kafka owner, the Kinesis source's
            ``approximateArrivalTimestamp`` with the Kinesis owner, when ``df`` has it as a timestamp (the
            default). ``False``: claims carry no event time (for a namespace whose other workers send none:
            the Redis tier keeps claims with and without event times apart).
        chunk_size, url, token, timeout, patience, on_verdicts: As for :func:`claim_partition`;
            ``on_verdicts`` runs on the executors (add to accumulators there).

    Raises:
        ValueError: On the driver, when a column is missing or of a type that does not fit (the message
            names it and the setting), a setting is not one of its forms, or ``df`` is streaming.

    The returned DataFrame is lazy: the claims are made when it is computed, once per computation, so cache
    or write it once (a second computation claims again: ``retry``, with the same rows kept).
    """
    claiming = _prepare(df, None, ns, locals())
    return df.sparkSession.createDataFrame(
        df.rdd.mapPartitions(partial(dedup_partition, **claiming)), df.schema, verifySchema=False
    )


def with_verdicts(
    df: Any,
    ns: str,
    *,
    verdict_col: str = VERDICT_COL,
    id_header: Optional[str] = ID_HEADER,
    id_col: Optional[str] = None,
    owner: Owner = "kafka",
    owner_col: Optional[str] = None,
    event_time_col: Optional[str] = None,
    source_event_time: bool = True,
    chunk_size: int = 1000,
    url: Optional[str] = None,
    token: Optional[str] = None,
    timeout: float = DedupClient.DEFAULT_TIMEOUT,
    patience: float = Claims.DEFAULT_PATIENCE,
    on_verdicts: Optional[Callable[[List[Verdict]], None]] = None,
) -> Any:
    """Every row of ``df`` with its verdict added as the string column ``verdict_col`` (``new``, ``retry``,
    ``duplicate``, never null). The other settings and errors are :func:`claim_and_keep`'s; ``verdict_col``
    must not be a column of ``df``."""
    if not isinstance(verdict_col, str) or not verdict_col:
        raise ValueError(f"verdict_col: must be a non-empty str, got {verdict_col!r}")
    claiming = _prepare(df, verdict_col, ns, locals())
    from pyspark.sql.types import StringType, StructField, StructType

    schema = StructType([*df.schema.fields, StructField(verdict_col, StringType(), nullable=False)])
    return df.sparkSession.createDataFrame(
        df.rdd.mapPartitions(partial(verdict_rows, **claiming)), schema, verifySchema=False
    )


def _prepare(df: Any, verdict_col: Optional[str], ns: str, settings: Dict[str, Any]) -> Dict[str, Any]:
    """Checks the settings and ``df``'s columns on the driver; the keywords of :func:`claim_partition`."""
    chosen = {k: settings[k] for k in ("id_header", "id_col", "owner", "owner_col", "event_time_col")}
    spec = RowClaims.of(**chosen)
    rest = [settings[k] for k in ("chunk_size", "url", "token", "timeout", "patience", "on_verdicts")]
    _claiming(spec, ns, *rest)  # every setting checked before the DataFrame is touched
    if not isinstance(settings["source_event_time"], bool):
        raise ValueError(f"source_event_time: must be True or False, got {settings['source_event_time']!r}")
    if spec.event_time_col is None and settings["source_event_time"]:
        spec = RowClaims.of(**{**chosen, "event_time_col": _source_time(df, spec)})
    _check(df, spec, verdict_col)
    return _claiming(spec, ns, *rest)


def _claiming(
    spec: RowClaims,
    ns: str,
    chunk_size: int,
    url: Optional[str],
    token: Optional[str],
    timeout: float,
    patience: float,
    on_verdicts: Optional[Callable[[List[Verdict]], None]],
) -> Dict[str, Any]:
    """The keywords of :func:`claim_partition` for ``spec``; the settings are checked here, on the driver,
    so that a bad one fails the call rather than every task."""
    Claims(DedupClient(url, token=token, timeout=timeout), ns, patience)  # validates them; connects to nothing
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size: must be a whole number >= 1, got {chunk_size!r}")
    return dict(
        ns=ns,
        id_of=spec.id_of,
        owner_of=spec.owner_of,
        ts_of=spec.ts_of if spec.event_time_col is not None else None,
        chunk_size=chunk_size,
        url=url,
        token=token,
        timeout=timeout,
        patience=patience,
        on_verdicts=on_verdicts,
    )


def _source_time(df: Any, spec: RowClaims) -> Optional[str]:
    """The source's timestamp column for the owner's kind, when ``df`` has it as a timestamp: the Kafka source's
    ``timestamp``, the Kinesis source's ``approximateArrivalTimestamp``; else ``None``."""
    name = "timestamp" if isinstance(spec.owner, KafkaColumns) else None
    if isinstance(spec.owner, KinesisColumns):
        name = "approximateArrivalTimestamp"
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    return name if name is not None and types.get(name) == "timestamp" else None


def _check(df: Any, spec: RowClaims, verdict_col: Optional[str]) -> None:
    if df.isStreaming:
        raise ValueError("df: a streaming DataFrame; claim each micro-batch in foreachBatch")
    spec.check({f.name: f.dataType.simpleString() for f in df.schema.fields}, verdict_col)


def _client(url: Optional[str], token: Optional[str], timeout: float) -> DedupClient:
    """One client per executor process and agent: PySpark reuses its Python workers across tasks."""
    key = (url, token, timeout)
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = DedupClient(url, token=token, timeout=timeout)
        return client
