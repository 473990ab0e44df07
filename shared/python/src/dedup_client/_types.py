"""The values a worker sends and gets back: :class:`Item` and :class:`Verdict`."""

from __future__ import annotations

import enum
from typing import NamedTuple, Optional, Union

#: An id or an owner: text (sent as UTF-8) or opaque bytes (a 16-byte binary UUID works).
Text = Union[str, bytes]


class Item(NamedTuple):
    """One message as a worker sends it.

    Attributes:
        id: The message's id: the producer's transaction id, a hash of the content, any string. At most
            512 UTF-8 bytes, not empty.
        owner: Where this copy of the message sits in the log it was read from: Kafka
            ``"partition:offset"``, Kinesis ``"shardId:sequenceNumber"``. At most 128 UTF-8 bytes, not
            empty.
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
