"""Where a DataFrame row's id, owner and event time are: :class:`RowClaims`, and the source's columns.

Pure Python: the checks take the schema as ``{column: Spark type}`` (``StructField.dataType.simpleString()``)
and the readers take any row that answers ``row[column]`` (a ``pyspark.sql.Row``, a ``dict``), so that all of
it runs and is tested without PySpark.
"""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any, Mapping, Optional, Union

from ._owners import kafka_owner, kinesis_owner

#: The header the message id is read from unless told otherwise.
ID_HEADER = "message-id"

_INTEGRAL = ("tinyint", "smallint", "int", "bigint")
_HEADERS = "array<struct<key:string,value:binary>>"


@dataclasses.dataclass(frozen=True)
class KafkaColumns:
    """The columns of Spark's Kafka source (``format("kafka")``) the owner and the id header are read from.

    The owner is :func:`dedup_client.kafka_owner` of ``topic``, ``partition``, ``offset``; the headers are
    there when the source was read with ``option("includeHeaders", "true")``.
    """

    topic: str = "topic"
    partition: str = "partition"
    offset: str = "offset"
    headers: str = "headers"


@dataclasses.dataclass(frozen=True)
class KinesisColumns:
    """The columns of a Kinesis source the owner is read from: :func:`dedup_client.kinesis_owner` of the
    stream's name, the shard id, the sequence number and, when a column is named for it (records de-aggregated
    from a KPL record), the sub-sequence number. The defaults are the names Databricks' Kinesis source gives."""

    stream: str = "stream"
    shard: str = "shardId"
    sequence: str = "sequenceNumber"
    sub_sequence: Optional[str] = None


Owner = Union[str, KafkaColumns, KinesisColumns]


@dataclasses.dataclass(frozen=True)
class RowClaims:
    """How each row of a DataFrame is claimed: its id, its owner, its event time. Build it with :meth:`of`.

    Frozen and made of strings, so Spark ships it to the executors as it is.
    """

    id_header: Optional[str]
    id_col: Optional[str]
    owner: Union[KafkaColumns, KinesisColumns, None]
    owner_col: Optional[str]
    event_time_col: Optional[str]

    @classmethod
    def of(
        cls,
        *,
        id_header: Optional[str] = ID_HEADER,
        id_col: Optional[str] = None,
        owner: Optional[Owner] = "kafka",
        owner_col: Optional[str] = None,
        event_time_col: Optional[str] = None,
    ) -> RowClaims:
        """Validates the settings of :func:`dedup_client.spark.claim_and_keep`.

        ``id_col`` wins over ``id_header``; ``owner_col`` (a column holding the owner, written by the
        source's ``dedup_client`` function) wins over ``owner``.

        Raises:
            ValueError: When a setting is not one of its forms, naming it and the value.
        """
        for name, value in (("id_header", id_header), ("id_col", id_col), ("owner_col", owner_col),
                            ("event_time_col", event_time_col)):  # fmt: skip
            if value is not None and (not isinstance(value, str) or not value):
                raise ValueError(f"{name}: must be a non-empty str or None, got {value!r}")
        if id_col is None and id_header is None:
            raise ValueError("id_header, id_col: one must name where the message id is (never the record key)")
        columns: Union[KafkaColumns, KinesisColumns, None]
        if owner_col is not None:
            columns = None
        elif owner == "kafka":
            columns = KafkaColumns()
        elif owner == "kinesis":
            columns = KinesisColumns()
        elif isinstance(owner, (KafkaColumns, KinesisColumns)):
            columns = owner
        else:
            raise ValueError(
                f"owner: must be 'kafka', 'kinesis', KafkaColumns(...) or KinesisColumns(...) (or give owner_col),"
                f" got {owner!r}"
            )
        return cls(None if id_col is not None else id_header, id_col, columns, owner_col, event_time_col)

    def columns(self) -> Mapping[str, str]:
        """The columns read, each with the setting that names it: ``{"topic": "owner=KafkaColumns.topic", ...}``."""
        used = {}
        if self.id_col is not None:
            used[self.id_col] = "id_col"
        if self.owner_col is not None:
            used[self.owner_col] = "owner_col"
        elif self.owner is not None:
            kind = type(self.owner).__name__
            for field in dataclasses.fields(self.owner):
                name = getattr(self.owner, field.name)
                if name is not None and not (field.name == "headers" and self.id_header is None):
                    used[name] = f"{kind}.{field.name}"
        if self.id_header is not None and not isinstance(self.owner, KafkaColumns):
            used["headers"] = "id_header (the headers column)"
        if self.event_time_col is not None:
            used[self.event_time_col] = "event_time_col"
        return used

    @property
    def headers_col(self) -> str:
        return self.owner.headers if isinstance(self.owner, KafkaColumns) else "headers"

    def check(self, schema: Mapping[str, str], verdict_col: Optional[str] = None) -> None:
        """Checks, on the driver before any task runs, that the DataFrame has the columns read, of types that fit.

        Args:
            schema: ``{column: Spark type}``, as ``StructField.dataType.simpleString()`` gives them.
            verdict_col: The column to be added, which must not be there yet.

        Raises:
            ValueError: Naming the missing column (and the setting that names it), or the column whose type
                does not fit, with the columns there are.
        """
        for column, setting in self.columns().items():
            if column not in schema:
                hint = ""
                if setting.endswith("headers") or setting.startswith("id_header"):
                    hint = ' (read Kafka with option("includeHeaders", "true"), or give id_col)'
                raise ValueError(
                    f"{setting}: the DataFrame has no column {column!r}{hint}; its columns: {', '.join(schema)}"
                )
        if self.id_header is not None and schema[self.headers_col] != _HEADERS:
            raise ValueError(
                f"{self.headers_col!r} is {schema[self.headers_col]}, not Kafka's headers ({_HEADERS})"
            )
        if self.id_col is not None and schema[self.id_col] not in ("string", "binary") + _INTEGRAL:
            raise ValueError(f"id_col: {self.id_col!r} is {schema[self.id_col]}; an id is a string, binary or integer")
        if self.owner_col is not None and schema[self.owner_col] != "string":
            raise ValueError(f"owner_col: {self.owner_col!r} is {schema[self.owner_col]}, not a string")
        if self.event_time_col is not None and schema[self.event_time_col] not in ("timestamp",) + _INTEGRAL:
            raise ValueError(
                f"event_time_col: {self.event_time_col!r} is {schema[self.event_time_col]};"
                " it must be a timestamp (with a zone, not timestamp_ntz), or whole epoch seconds"
            )
        if verdict_col is not None and verdict_col in schema:
            raise ValueError(f"verdict_col: the DataFrame has a column {verdict_col!r} already")

    def owner_of(self, row: Any) -> str:
        """Where this copy of the row was read from, written as the source's ``dedup_client`` function writes it."""
        if self.owner_col is not None:
            value = row[self.owner_col]
            if not value:
                raise ValueError(f"owner_col: a row has no (or an empty) {self.owner_col!r}")
            return str(value)
        if isinstance(self.owner, KafkaColumns):
            c = self.owner
            return kafka_owner(row[c.topic], row[c.partition], row[c.offset])
        k = self.owner
        assert k is not None, "the owner's columns are resolved when the settings are made"
        sub = row[k.sub_sequence] if k.sub_sequence is not None else 0
        return kinesis_owner(row[k.stream], row[k.shard], row[k.sequence], sub or 0)

    def id_of(self, row: Any) -> Union[str, bytes]:
        """The row's message id: its ``id_col`` (text, bytes, an integer as text), or its last ``id_header``.

        Raises:
            ValueError: When the row has none, or an empty one, saying where the row was read from.
        """
        if self.id_col is not None:
            value = row[self.id_col]
            if isinstance(value, bytearray):
                value = bytes(value)
            elif isinstance(value, int) and not isinstance(value, bool):
                value = str(value)
            if not value:
                raise ValueError(f"the row at {self.owner_of(row)} has no (or an empty) {self.id_col!r}")
            if not isinstance(value, (str, bytes)):
                raise ValueError(f"id_col: {self.id_col!r} holds a {type(value).__name__}, not text, bytes or an integer")
            return value
        found = None
        for entry in row[self.headers_col] or ():
            if entry[0] == self.id_header:
                found = entry[1]  # the last, as Java's lastHeader takes it
        if not found:
            raise ValueError(
                f"the row at {self.owner_of(row)} has no (or an empty) header {self.id_header}:"
                " its producer must set the message's id there"
            )
        return bytes(found).decode("utf-8")

    def ts_of(self, row: Any) -> int:
        """The row's event time in whole epoch seconds, from ``event_time_col``.

        A timestamp column comes to Python as a ``datetime`` in the worker's local time without a zone, which
        ``datetime.timestamp()`` reads as local time: the epoch second is right whatever Spark's time zone.
        """
        value = row[self.event_time_col]
        if isinstance(value, datetime.datetime):
            return int(value.timestamp())
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ValueError(f"event_time_col: the row at {self.owner_of(row)} has {value!r}, not a time")
