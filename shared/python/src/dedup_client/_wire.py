"""The contract's formats: binary batches out, verdict and release bytes in, the ranges' JSON both ways,
JSON error bodies in.

Only what the binary format itself cannot hold is refused here (a field over 65,535 bytes, an event
time outside a ``u32``), and for ranges what is not a range (see :class:`SequenceRange`); everything else
the contract limits (empty ids, ids over 512 bytes, a bad namespace, an empty stream, a sequence number
over 129 digits) is left to the agent, whose 400 names the place.
"""

from __future__ import annotations

import datetime
import email.utils
import json
import re
import struct
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ._errors import DedupError
from ._types import Item, SequenceRange, Text, Verdict

_BY_CODE = tuple(Verdict.of_code(c) for c in range(3))

#: ``Content-Type`` of a binary batch.
BATCH = "application/x-dedup-batch"
#: ``Content-Type`` of the binary answer to a binary batch.
VERDICTS = "application/x-dedup-verdicts"
#: ``Content-Type`` of the contract's JSON bodies.
JSON = "application/json"

#: The flag in the namespace-length byte that says every item is followed by a ``u32`` event second.
EVENT_TIMES = 0x80
#: Largest event second a ``u32`` holds.
MAX_EVENT_SECOND = 0xFFFFFFFF

#: The longest sequence number the contract allows, in decimal digits.
MAX_SEQUENCE_DIGITS = 129
# A sequence number as the agent writes it: decimal digits without leading zeros.
_CANONICAL = re.compile(r"0|[1-9][0-9]*")

_MAX_FIELD = 0xFFFF
_MAX_NAMESPACE = 0x7F
_MAX_DETAIL = 1000

#: What :meth:`DedupClient.claim` accepts as one item.
ItemLike = Union[Item, Tuple[Text, Text], Tuple[Text, Text, Optional[int]], Sequence[Any]]
#: What :meth:`DedupClient.check_ranges` accepts as one range: a :class:`SequenceRange` or a ``(first, last)`` pair.
RangeLike = Union[SequenceRange, Tuple[Union[int, str], Union[int, str]], Sequence[Any]]


def encode_batch(ns: Optional[str], items: Iterable[ItemLike]) -> Tuple[bytes, int]:
    """Writes ``application/x-dedup-batch``: the namespace, then each item's id, owner and event second.

    Args:
        ns: The namespace; ``None`` or ``""`` for the agent's ``default``.
        items: :class:`Item` or ``(id, owner)`` / ``(id, owner, ts)`` tuples.

    Returns:
        The body and the number of items in it.

    Raises:
        TypeError: When an item is not an Item or a 2- or 3-tuple (or list), or a field is not ``str``/``bytes``/``int``.
        ValueError: When a field is over 65,535 bytes, the namespace over 127 bytes (what the binary format
            holds; the agent takes 1 to 64 of ``A-Z a-z 0-9 . _ -``), an event time is not epoch seconds from 1
            to 4294967295, or only some items carry one.
    """
    ns_bytes = (ns or "").encode("utf-8")
    if len(ns_bytes) > _MAX_NAMESPACE:
        raise ValueError(f"ns: {len(ns_bytes)} bytes, the binary format holds at most {_MAX_NAMESPACE}")
    fields: List[Tuple[bytes, bytes, Optional[int]]] = []
    timed = 0
    for i, item in enumerate(items):
        id_, owner, ts = _unpack(i, item)
        if ts is not None:
            timed += 1
        fields.append((_field(i, "id", id_), _field(i, "owner", owner), ts))
    if timed not in (0, len(fields)):
        raise ValueError(
            f"items: {timed} of {len(fields)} carry an event time (ts); a batch carries one on every "
            f"item or on none"
        )
    out = bytearray()
    out.append(len(ns_bytes) | (EVENT_TIMES if timed else 0))
    out += ns_bytes
    pack_u16 = struct.Struct(">H").pack
    pack_u32 = struct.Struct(">I").pack
    for id_bytes, owner_bytes, ts in fields:
        out += pack_u16(len(id_bytes))
        out += id_bytes
        out += pack_u16(len(owner_bytes))
        out += owner_bytes
        if ts is not None:
            out += pack_u32(ts)
    return bytes(out), len(fields)


def _unpack(i: int, item: ItemLike) -> Tuple[Any, Any, Optional[int]]:
    if not isinstance(item, (tuple, list)) or len(item) not in (2, 3):
        raise TypeError(f"items[{i}]: expected Item(id, owner, ts=None) or an (id, owner) tuple, got {item!r}")
    ts = item[2] if len(item) == 3 else None
    if ts is not None:
        if isinstance(ts, bool) or not isinstance(ts, int):
            raise TypeError(f"items[{i}].ts: expected whole epoch seconds (int) or None, got {ts!r}")
        if not 1 <= ts <= MAX_EVENT_SECOND:
            hint = " (milliseconds? divide by 1000)" if ts > MAX_EVENT_SECOND else ""
            raise ValueError(f"items[{i}].ts: {ts} is not epoch seconds from 1 to {MAX_EVENT_SECOND}{hint}")
    return item[0], item[1], ts


def _field(i: int, name: str, value: Any) -> bytes:
    if isinstance(value, str):
        b = value.encode("utf-8")
    elif isinstance(value, (bytes, bytearray, memoryview)):
        b = bytes(value)
    else:
        raise TypeError(f"items[{i}].{name}: expected str or bytes, got {type(value).__name__}")
    if len(b) > _MAX_FIELD:
        raise ValueError(f"items[{i}].{name}: {len(b)} bytes, the binary format holds at most {_MAX_FIELD}")
    return b


def decode_verdicts(body: bytes, items: int) -> List[Verdict]:
    """Reads a binary answer to a claim: one byte per item, ``0`` new, ``1`` retry, ``2`` duplicate.

    Raises:
        DedupError: :data:`DedupError.INVALID_RESPONSE` when the body does not hold one verdict per item.
    """
    _check_length(body, items)
    if body and max(body) > 2:
        i, b = next((i, b) for i, b in enumerate(body) if b > 2)
        raise DedupError(200, DedupError.INVALID_RESPONSE, f"byte {i} is {b}, not a verdict (0 new, 1 retry, 2 duplicate)")
    by_code = _BY_CODE
    return [by_code[b] for b in body]


def decode_released(body: bytes, items: int) -> List[bool]:
    """Reads a binary answer to a release: one byte per item, ``1`` released, ``0`` not held by that owner.

    Raises:
        DedupError: :data:`DedupError.INVALID_RESPONSE` when the body does not hold one answer per item.
    """
    _check_length(body, items)
    for i, b in enumerate(body):
        if b > 1:
            raise DedupError(200, DedupError.INVALID_RESPONSE, f"byte {i} is {b}, not 0 or 1")
    return [b == 1 for b in body]


def _check_length(body: bytes, items: int) -> None:
    if len(body) != items:
        raise DedupError(200, DedupError.INVALID_RESPONSE, f"{len(body)} bytes for {items} items")


def encode_ranges(ns: Optional[str], stream: str, ranges: Iterable[RangeLike]) -> Tuple[bytes, List[SequenceRange]]:
    """Writes ``{"ns": ..., "stream": ..., "ranges": [{"from": "...", "to": "..."}, ...]}``.

    Args:
        ns: The namespace; ``None`` or ``""`` leaves it out, which the agent takes as ``default``.
        stream: The stream's name (a Kinesis shard id, ``topic-partition``).
        ranges: :class:`SequenceRange` or ``(first, last)`` pairs.

    Returns:
        The body and the ranges it holds, as :class:`SequenceRange`.

    Raises:
        TypeError: When ``ns`` or ``stream`` is not a ``str``, or a range is not a SequenceRange or a pair.
        ValueError: When a pair is not a range (see :class:`SequenceRange`); the message names it.
    """
    if ns is not None and not isinstance(ns, str):
        raise TypeError(f"ns: expected str or None, got {type(ns).__name__}")
    if not isinstance(stream, str):
        raise TypeError(f"stream: expected str, got {type(stream).__name__}")
    checked: List[SequenceRange] = []
    for k, r in enumerate(ranges):
        if isinstance(r, SequenceRange):
            checked.append(r)
            continue
        if not isinstance(r, (tuple, list)) or len(r) != 2:
            raise TypeError(f"ranges[{k}]: expected SequenceRange(first, last) or a (first, last) pair, got {r!r}")
        try:
            checked.append(SequenceRange.of(r[0], r[1]))
        except (TypeError, ValueError) as e:
            raise type(e)(f"ranges[{k}]: {e}") from None
    body: Dict[str, object] = {} if not ns else {"ns": ns}
    body["stream"] = stream
    body["ranges"] = [{"from": str(r.first), "to": str(r.last)} for r in checked]
    return json.dumps(body, separators=(",", ":")).encode("utf-8"), checked


def decode_done(body: bytes, asked: List[SequenceRange]) -> List[List[SequenceRange]]:
    """Reads ``{"done": [[{"from": "...", "to": "..."}, ...], ...]}``: per asked range, its committed parts.

    Raises:
        DedupError: :data:`DedupError.INVALID_RESPONSE` unless there is one list per asked range, each of
            ranges inside the asked one, in order and apart.
    """
    done = _json_field(body, "done")
    if not isinstance(done, list) or len(done) != len(asked):
        raise DedupError(200, DedupError.INVALID_RESPONSE, f'"done" is not a list of {len(asked)} lists')
    out: List[List[SequenceRange]] = []
    for k, (parts, whole) in enumerate(zip(done, asked)):
        if not isinstance(parts, list):
            raise DedupError(200, DedupError.INVALID_RESPONSE, f"done[{k}] is not a list")
        read: List[SequenceRange] = []
        for part in parts:
            r = _range_of(part)
            if r is None or not whole.first <= r.first <= r.last <= whole.last:
                raise DedupError(200, DedupError.INVALID_RESPONSE, f"done[{k}] holds {part!r}, not a part of {whole}")
            if read and r.first <= read[-1].last:
                raise DedupError(200, DedupError.INVALID_RESPONSE, f"done[{k}]: {r} is not after {read[-1]}")
            read.append(r)
        out.append(read)
    return out


def decode_committed(body: bytes, ranges: int) -> None:
    """Reads ``{"committed": [true, ...]}``, one ``true`` per range.

    Raises:
        DedupError: :data:`DedupError.INVALID_RESPONSE` otherwise.
    """
    committed = _json_field(body, "committed")
    if not isinstance(committed, list) or len(committed) != ranges or any(c is not True for c in committed):
        raise DedupError(200, DedupError.INVALID_RESPONSE, f'"committed" is not a list of {ranges} true')


def _json_field(body: bytes, name: str) -> Any:
    try:
        fields = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        shown = body[:100].decode("utf-8", "replace")
        raise DedupError(200, DedupError.INVALID_RESPONSE, f"not JSON: {shown!r}") from None
    if not isinstance(fields, dict) or name not in fields:
        raise DedupError(200, DedupError.INVALID_RESPONSE, f'no "{name}" in the answer')
    return fields[name]


def _range_of(part: Any) -> Optional[SequenceRange]:
    """A ``{"from": "...", "to": "..."}`` of the agent's (digits without leading zeros), or ``None``."""
    if not isinstance(part, dict):
        return None
    low, high = part.get("from"), part.get("to")
    if not all(isinstance(e, str) and len(e) <= MAX_SEQUENCE_DIGITS and _CANONICAL.fullmatch(e) for e in (low, high)):
        return None
    first, last = int(str(low)), int(str(high))
    return SequenceRange(first, last) if first <= last else None


def error_of(status: int, body: bytes, retry_after: Optional[str]) -> DedupError:
    """The error a non-200 answer carries: ``{"error": "<code>", "message": "..."}`` and ``Retry-After``.

    A body that is not the agent's JSON (a proxy's page, say) keeps its start as the detail, with the
    code ``http_<status>``.
    """
    code: Optional[str] = None
    message: Optional[str] = None
    try:
        fields = json.loads(body.decode("utf-8"))
        if isinstance(fields, dict):
            code = fields.get("error") if isinstance(fields.get("error"), str) else None
            message = fields.get("message") if isinstance(fields.get("message"), str) else None
    except (UnicodeDecodeError, ValueError):
        pass
    if not code:
        code = f"http_{status}"
        if message is None:
            message = body[:_MAX_DETAIL].decode("utf-8", "replace").strip()
    return DedupError(status, code, message or "", parse_retry_after(retry_after))


def parse_retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds from a ``Retry-After`` header: delta-seconds or an HTTP-date; ``None`` if absent or unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if at is None:
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=datetime.timezone.utc)
    return max(0.0, (at - datetime.datetime.now(datetime.timezone.utc)).total_seconds())
