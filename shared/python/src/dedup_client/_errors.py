"""The one exception every failed call raises: :class:`DedupError`."""

from __future__ import annotations

from typing import Optional


class DedupError(Exception):
    """A call that did not get its answer: the agent answered an error, answered nonsense, or did not answer.

    Whatever the cause, **the call decided nothing the worker may rely on**: the messages of the batch
    have no verdict and none of them may be skipped; no range may be taken as done, and a commit is not
    known to be made. Send the same batch with the same owners again (a 503 may have left part of it
    claimed; those then answer ``retry``), or fail the task so that it is retried; commit again.

    Attributes:
        status: The HTTP status of the answer (400, 401, 413, 415, 503...; 200 for
            :data:`INVALID_RESPONSE`), or ``None`` when there was no answer (:data:`UNREACHABLE`,
            :data:`TIMEOUT`).
        error: The contract's error code (``bad_request``, ``too_large``, ``unsupported_media_type``,
            ``unauthorized``, ``unavailable``...), ``http_<status>`` when an answer carried none, or one
            of this module's codes for failures without an answer.
        detail: The agent's message, which says what and where (``items[3].id: empty``), or what went
            wrong on the way; may be empty.
        retry_after: Seconds to wait before sending again, from the answer's ``Retry-After`` header (a
            503 carries one), or ``None``.
    """

    #: A 200 answer that cannot be read as the call's: one verdict (or release) per item, one list of
    #: committed parts per range checked, one ``true`` per range committed.
    INVALID_RESPONSE = "invalid_response"
    #: No answer: the agent could not be connected to, or the connection broke.
    UNREACHABLE = "unreachable"
    #: No answer within the client's timeout.
    TIMEOUT = "timeout"

    def __init__(
        self,
        status: Optional[int],
        error: str,
        detail: str = "",
        retry_after: Optional[float] = None,
    ) -> None:
        prefix = f"{status} {error}" if status is not None else error
        super().__init__(f"{prefix}: {detail}" if detail else prefix)
        self.status = status
        self.error = error
        self.detail = detail
        self.retry_after = retry_after

    @property
    def rejected(self) -> bool:
        """True for a 4xx: the request itself is wrong, and sending it again gets the same answer."""
        return self.status is not None and 400 <= self.status < 500

    @property
    def unavailable(self) -> bool:
        """True for a 503: the agent cannot decide now (its store is down or slow); send again later."""
        return self.status == 503

    def __repr__(self) -> str:
        return (
            f"DedupError(status={self.status!r}, error={self.error!r}, detail={self.detail!r}, "
            f"retry_after={self.retry_after!r})"
        )
