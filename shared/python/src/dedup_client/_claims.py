"""Claims with the patience a worker needs: :class:`Claims`."""

from __future__ import annotations

import logging
import time
from typing import Callable, Iterable, List, Optional, TypeVar

from ._client import DedupClient
from ._errors import DedupError
from ._types import Verdict
from ._wire import ItemLike

log = logging.getLogger("dedup_client")

T = TypeVar("T")


class Claims:
    """Claims and releases in one namespace, sending a call the agent does not answer again until it does.

    A call that fails decided nothing the worker may rely on, so the same items (same owners) are sent again,
    50 ms apart doubling up to 1 s (or after a 503's ``Retry-After`` when that is longer), until the agent
    answers or ``patience`` seconds have passed; then the
    last :class:`DedupError` is raised and the caller fails (a Spark task, a poll loop) without skipping
    anything. While the agent restarts or its store is down (503, no answer, a timeout), the worker waits;
    what the failed calls claimed answers ``retry`` when the same items are sent again. A rejected request
    (4xx: a missing token, an id over the limit) is raised at once: sending it again gets the same answer.
    The Java client's ``Claims`` behaves alike.

    Example::

        claims = Claims(DedupClient(), "clicks")  # DEDUP_URL, DEDUP_TOKEN; 60 s of patience
        verdicts = claims.claim(items)

    Thread-safe, as the client is.
    """

    #: Seconds a worker waits for its agent by default: long enough for a sidecar's restart.
    DEFAULT_PATIENCE = 60.0
    #: The first pause between two sends, in seconds; it doubles up to :data:`MAX_PAUSE`.
    FIRST_PAUSE = 0.05
    #: The longest pause between two sends, in seconds, unless a 503's ``Retry-After`` asks for longer.
    MAX_PAUSE = 1.0

    def __init__(
        self,
        client: DedupClient,
        ns: Optional[str],
        patience: float = DEFAULT_PATIENCE,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """
        Args:
            client: The client the calls go through.
            ns: The namespace to claim in; ``None`` or ``""`` for ``default``.
            patience: Seconds to keep sending a call the agent does not answer; 0: once.
            clock: Seconds of a monotonic clock (tests pass their own).
            sleep: How to pause (tests pass their own).

        Raises:
            ValueError: When ``patience`` is not a number of seconds >= 0.
        """
        if isinstance(patience, bool) or not isinstance(patience, (int, float)) or not patience >= 0:
            raise ValueError(f"patience: must be seconds >= 0, got {patience!r}")
        self._client = client
        self._ns = ns
        self._patience = float(patience)
        self._clock = clock
        self._sleep = sleep

    @property
    def client(self) -> DedupClient:
        """The client the calls go through."""
        return self._client

    @property
    def ns(self) -> Optional[str]:
        """The namespace claimed in."""
        return self._ns

    def claim(self, items: Iterable[ItemLike]) -> List[Verdict]:
        """One verdict per item, in order (:meth:`DedupClient.claim`), sent again until the agent answers.

        Raises:
            DedupError: At once for a 4xx; else the last failure once ``patience`` has passed.
        """
        batch = list(items)
        return self._patiently(lambda: self._client.claim(self._ns, batch))

    def release(self, items: Iterable[ItemLike]) -> List[bool]:
        """Gives the claims of ``items`` back (:meth:`DedupClient.release`), sent again until the agent answers.

        Returns:
            Per item, in order: ``True`` if released, ``False`` if its owner did not hold the claim (or a
            failed attempt before the answer had released it already).

        Raises:
            DedupError: As for :meth:`claim`.
        """
        batch = list(items)
        if not batch:
            return []
        return self._patiently(lambda: self._client.release(self._ns, batch))

    def _patiently(self, call: Callable[[], T]) -> T:
        deadline = self._clock() + self._patience
        pause = self.FIRST_PAUSE
        while True:
            try:
                return call()
            except DedupError as e:
                now = self._clock()
                if e.rejected or now >= deadline:
                    raise
                wait = min(max(pause, e.retry_after or 0.0), deadline - now)
                log.warning("%s did not answer (%s); sending the same items again in %g s", self._client.url, e, wait)
            self._sleep(wait)
            pause = min(pause * 2, self.MAX_PAUSE)

    def __repr__(self) -> str:
        return f"Claims({self._client!r}, {self._ns!r}, patience={self._patience:g})"
