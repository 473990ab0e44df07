"""The values a worker sends and gets back: :class:`Item`, :class:`Verdict` and :class:`SequenceRange`."""

from __future__ import annotations

import dataclasses
import enum
import re
from typing import NamedTuple, Optional, Union

#: An id or an owner: text (sent as UTF-8) or opaque bytes (a 16-byte binary UUID works).
Text = Union[str, bytes]


class Item(NamedTuple):
    """One message as a worker sends it.

    Attributes:
        id: The message's id: the producer's transaction id, a hash of the content, any string. At most
            512 UTF-8 bytes, not empty.
        owner: Where this copy of the message sits in the log it was read from, as :func:`kafka_owner`,
            :func:`kinesis_owner`, :func:`sqs_owner` or :func:`rabbitmq_owner` write it. At most 128 UTF-8
            bytes, not empty.
        ts: The message's event time in whole epoch seconds (a Kafka record's ``timestamp // 1000``), or
            ``None``. Required in a namespace the agent files by event time, ignored elsewhere; every copy
            of a message must carry the same ``ts``. In one batch, every item carries one or none does.

    A plain ``(id, owner)`` or ``(id, owner, ts)`` tuple is accepted wherever an ``Item`` is.
    """

    id: Text
    owner: Text
    ts: Optional[int] = None


class Verdict(str, enum.Enum):
    """The agent's answer for one claimed item; each member compares equal to its contract string.

    ``Verdict.NEW == "new"``, so a worker may compare with either.
    """

    NEW = "new"
    """Nobody claimed this id in the window; it is now claimed by this owner: process it."""

    RETRY = "retry"
    """The id is already claimed by this same owner (a retried task re-reading the same copy): process it
    again."""

    DUPLICATE = "duplicate"
    """The id is claimed by a different owner (another copy of the message): skip it."""

    def __str__(self) -> str:
        return self.value

    @property
    def code(self) -> int:
        """The verdict's byte in the binary answer: 0 new, 1 retry, 2 duplicate."""
        return _CODES[self]

    @classmethod
    def of_code(cls, code: int) -> Verdict:
        """The verdict of a byte of the binary answer.

        Raises:
            ValueError: When ``code`` is not 0, 1 or 2.
        """
        if 0 <= code < len(_BY_CODE):
            return _BY_CODE[code]
        raise ValueError(f"{code} is not a verdict code (0 new, 1 retry, 2 duplicate)")


_BY_CODE = (Verdict.NEW, Verdict.RETRY, Verdict.DUPLICATE)
_CODES = {v: i for i, v in enumerate(_BY_CODE)}


#: A sequence number: a whole number >= 0, or its decimal digits as text (Kinesis gives them as text).
Sequence = Union[int, str]

_DIGITS = re.compile(r"[0-9]+")


@dataclasses.dataclass(frozen=True)
class SequenceRange:
    """An inclusive range of sequence numbers of one ordered stream (a Kafka partition, a Kinesis shard).

    ``first`` and ``last`` are the contract's ``from`` and ``to`` (``from`` is a Python keyword): whole
    numbers, ``0 <= first <= last``, both inclusive, kept as ``int``. :meth:`of` takes them as decimal
    text too (Kinesis gives sequence numbers as text). The contract's own limit, at most 129 digits, is the
    agent's to check: a longer number is its 400.

    Kinesis sequence numbers are sparse: a worker that reads a shard in order commits each batch
    :meth:`after` the previous one, so that its commits merge into one stored range.

    Raises:
        TypeError: When ``first`` or ``last`` is not an ``int`` or a ``str``.
        ValueError: When one is negative or not decimal digits, or ``first > last``.
    """

    first: int
    last: int

    def __post_init__(self) -> None:
        first = _sequence("first", self.first)
        last = _sequence("last", self.last)
        if first > last:
            raise ValueError(f"first {first} is after last {last}")
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "last", last)

    @classmethod
    def of(cls, first: Sequence, last: Sequence) -> SequenceRange:
        """The range from ``first`` to ``last``, each an ``int`` or decimal text such as a Kinesis sequence
        number (``"49590338271490256608559692538361571095921575989136588898"``)."""
        return cls(_sequence("first", first), _sequence("last", last))

    @classmethod
    def after(cls, previous_last: Optional[Sequence], first: Sequence, last: Sequence) -> SequenceRange:
        """The range to commit for a batch read in order: from one past ``previous_last`` (the last sequence
        number of the batch before) to ``last``; or from ``first`` for the first batch (``previous_last``
        ``None``).

        Example::

            commit = SequenceRange.after(previous_last, batch[0].seq, batch[-1].seq)
        """
        if previous_last is None:
            return cls(_sequence("first", first), _sequence("last", last))
        return cls(_sequence("previous_last", previous_last) + 1, _sequence("last", last))

    def contains(self, n: Sequence) -> bool:
        """True when sequence number ``n`` lies in the range, ends included."""
        return self.first <= _sequence("n", n) <= self.last

    def __str__(self) -> str:
        return f"[{self.first}, {self.last}]"


def _sequence(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"{name}: expected a sequence number (int or decimal str), got {type(value).__name__}")
    if isinstance(value, str):
        if not _DIGITS.fullmatch(value):
            shown = value if len(value) <= 40 else value[:40] + "..."
            raise ValueError(f"{name}: {shown!r} is not an unsigned decimal number")
        return int(value)
    if value < 0:
        raise ValueError(f"{name}: {value} is negative; sequence numbers are unsigned")
    return value
