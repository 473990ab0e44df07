"""The client: :class:`DedupClient`."""

from __future__ import annotations

import http.client
import os
import socket
import ssl
import threading
import urllib.parse
import weakref
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

from . import _wire
from ._errors import DedupError
from ._types import SequenceRange, Verdict
from ._wire import ItemLike, RangeLike

# A kept-alive connection the agent (or a proxy) closed while it sat idle fails like this on its next
# request, before any answer; such a request is sent once more on a new connection.
_STALE = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError, ConnectionAbortedError)


class DedupClient:
    """Claims and releases batches of messages at a dedup agent, over the contract's binary format; checks
    and commits ranges of ordered streams.

    Example::

        dedup = DedupClient()  # the agent of DEDUP_URL (default http://127.0.0.1:7070), with DEDUP_TOKEN
        batch = [Item(dict(r.headers)["message-id"].decode(), kafka_owner(r.topic, r.partition, r.offset))
                 for r in records]  # the producer's id (never the record key) and where this copy sits
        verdicts = dedup.claim("clicks", batch)  # raises DedupError: then process nothing, retry
        for record, verdict in zip(records, verdicts):
            if verdict != Verdict.DUPLICATE:
                process(record)  # NEW, or RETRY: this copy was claimed by us before

    Answers come in item order, one per item; the same id twice in a batch is ``new`` then ``retry`` or
    ``duplicate``. **A call that fails (it raises** :class:`DedupError` **) decided nothing the worker
    may rely on**: a message without a verdict must not be skipped. A 503 may leave part of the batch
    claimed; sending the same batch with the same owners again answers ``retry`` for those.

    A worker that reads an ordered stream (a Kafka partition, a Kinesis shard) in batches may instead
    commit each batch's range of sequence numbers once its output is written
    (:meth:`commit_ranges`), and after a restart or a rebalance ask which parts of a batch are done
    (:meth:`check_ranges`)::

        batch = SequenceRange.after(previous_last, records[0].seq, records[-1].seq)
        (done,) = dedup.check_ranges("orders", shard_id, [batch])  # raises DedupError: nothing is done
        process([r for r in records if not any(d.contains(r.seq) for d in done)])  # write durably
        dedup.commit_ranges("orders", shard_id, [batch])

    One client may be shared by every thread of a process: each thread keeps its own kept-alive HTTP
    connection to the agent (and so does each process forked after the client was made, as PySpark's
    workers are). :meth:`close` closes them all.
    """

    #: The agent's address when neither ``url`` nor ``DEDUP_URL`` gives one: the sidecar on loopback.
    DEFAULT_URL = "http://127.0.0.1:7070"
    #: The environment variable that names the agent's address when no ``url`` is given.
    URL_VARIABLE = "DEDUP_URL"
    #: The environment variable that holds the agent's ``--token`` when no ``token`` is given.
    TOKEN_VARIABLE = "DEDUP_TOKEN"
    #: The environment variable naming a PEM file of the certificates an ``https`` agent is trusted by.
    CA_FILE_VARIABLE = "DEDUP_CA_FILE"
    #: Seconds a socket operation (connecting, sending, each read of the answer) may take, unless set.
    DEFAULT_TIMEOUT = 5.0

    def __init__(
        self,
        url: Optional[str] = None,
        token: Optional[str] = None,
        timeout: float = DEFAULT_TIMEOUT,
        *,
        environ: Optional[Mapping[str, str]] = None,
        ca_file: Optional[str] = None,
    ) -> None:
        """Makes a client of the agent at ``url``; nothing is connected until the first call.

        ``DedupClient()`` finds the agent as the manifests tell workers: ``DEDUP_URL`` and ``DEDUP_TOKEN``.

        Args:
            url: The agent's base URL, ``http://host:port`` (``https://`` through a TLS proxy); a path is
                kept as a prefix of the agent's paths. ``None``: ``DEDUP_URL``, else :data:`DEFAULT_URL`.
            token: The agent's ``--token``: sent as ``Authorization: Bearer <token>`` with every call.
                ``None``: ``DEDUP_TOKEN`` when it is set and not empty, else no token. Whitespace around
                either variable is ignored (a Secret's trailing newline), as the agent ignores it.
            timeout: Seconds each socket operation may take (connecting, sending, each read of the
                answer) before the call fails with :data:`DedupError.TIMEOUT`.
            environ: Where ``DEDUP_URL``, ``DEDUP_TOKEN`` and ``DEDUP_CA_FILE`` are read; :data:`os.environ`
                by default.
            ca_file: A PEM file of the certificates to trust for an ``https`` agent (the issuer of its
                ``--tls-cert-file``), instead of the system's. ``None``: ``DEDUP_CA_FILE`` when it is set.

        Raises:
            ValueError: When a setting is out of range: the message names the setting (or the
                environment variable) and the value.
        """
        env = os.environ if environ is None else environ
        url_setting, token_setting = "url", "token"
        if url is None:
            url, url_setting = _variable(env, self.URL_VARIABLE) or self.DEFAULT_URL, self.URL_VARIABLE
        if token is None:
            token, token_setting = _variable(env, self.TOKEN_VARIABLE), self.TOKEN_VARIABLE
        ca_setting = "ca_file"
        if ca_file is None:
            ca_file, ca_setting = _variable(env, self.CA_FILE_VARIABLE), self.CA_FILE_VARIABLE
        self._ssl: Optional[ssl.SSLContext] = None
        if ca_file is not None:
            try:
                self._ssl = ssl.create_default_context(cafile=ca_file)
            except (OSError, ssl.SSLError) as e:
                raise ValueError(f"{ca_setting}: {ca_file!r} is not a readable PEM file of certificates: {e}") from None
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            raise ValueError(
                f"{url_setting}: {url!r} is not an http(s) URL with a host and no query, e.g. {self.DEFAULT_URL}"
            )
        try:
            port = parts.port
        except ValueError as e:
            raise ValueError(f"{url_setting}: {url!r}: {e}") from None
        if token is not None and (
            not isinstance(token, str) or not token or any(not 0x21 <= ord(c) <= 0x7E for c in token)
        ):
            raise ValueError(f"{token_setting}: must be non-empty printable ASCII without spaces")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"timeout: must be positive seconds, got {timeout!r}")

        self._url = url
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = port or (443 if self._https else 80)
        prefix = parts.path.rstrip("/")
        self._claims = prefix + "/v1/claims"
        self._releases = prefix + "/v1/releases"
        self._ranges_check = prefix + "/v1/ranges/check"
        self._ranges_commit = prefix + "/v1/ranges/commit"
        self._timeout = float(timeout)
        self._headers = {"Content-Type": _wire.BATCH, "Accept": _wire.VERDICTS}
        self._json_headers = {"Content-Type": _wire.JSON, "Accept": _wire.JSON}
        if token is not None:
            self._headers["Authorization"] = "Bearer " + token
            self._json_headers["Authorization"] = "Bearer " + token
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: "weakref.WeakSet[http.client.HTTPConnection]" = weakref.WeakSet()

    @property
    def url(self) -> str:
        """The agent's base URL, as given."""
        return self._url

    def claim(self, ns: Optional[str], items: Iterable[ItemLike]) -> List[Verdict]:
        """Claims ``items`` in namespace ``ns``.

        Args:
            ns: The namespace (``[A-Za-z0-9._-]{1,64}``); ``None`` or ``""`` for ``default``.
            items: :class:`Item` or ``(id, owner)`` / ``(id, owner, ts)`` tuples, at most the agent's
                ``max-batch`` (10,000 by default).

        Returns:
            One :class:`Verdict` per item, in order.

        Raises:
            DedupError: When the call got no verdicts: the agent rejected the batch (4xx, ``.rejected``;
                nothing was claimed), could not decide (503, ``.retry_after``; part of the batch may be
                claimed), answered nonsense, or could not be reached in time. Nothing may be skipped.
            TypeError, ValueError: When an item cannot be written in the binary format (see
                :class:`Item`); nothing was sent.
        """
        body, n = _wire.encode_batch(ns, items)
        return _wire.decode_verdicts(self._post(self._claims, body, self._headers), n)

    def release(self, ns: Optional[str], items: Iterable[ItemLike]) -> List[bool]:
        """Gives back the claims of ``items``, e.g. when processing failed and the messages will be redelivered.

        A claim is released only where the item's owner holds it; afterwards the next claim of that id is
        ``new``. In a namespace filed by event time, the items carry ``ts`` here too.

        Args:
            ns: The namespace; ``None`` or ``""`` for ``default``.
            items: As for :meth:`claim`.

        Returns:
            Per item, in order: ``True`` if released, ``False`` if that owner did not hold the claim. A
            release sent again after a failed one (as :class:`Claims` does) answers ``False`` for what the
            failed attempt had already released.

        Raises:
            DedupError: As for :meth:`claim`; then what was released is unknown.
            TypeError, ValueError: As for :meth:`claim`.
        """
        body, n = _wire.encode_batch(ns, items)
        return _wire.decode_released(self._post(self._releases, body, self._headers), n)

    def check_ranges(
        self, ns: Optional[str], stream: str, ranges: Iterable[RangeLike]
    ) -> List[List[SequenceRange]]:
        """Which parts of ``ranges`` of an ordered stream were committed already, within the namespace's window.

        Before processing a batch after a restart or a rebalance, drop the records inside them.

        Args:
            ns: The namespace; ``None`` or ``""`` for ``default``.
            stream: The stream, 1 to 256 UTF-8 bytes: a Kinesis shard id, ``topic-partition`` for Kafka.
            ranges: :class:`SequenceRange` or ``(first, last)`` pairs, at most the agent's ``max-batch``.

        Returns:
            Per range, in order: its maximal committed sub-ranges, in order (an empty list when none is).

        Raises:
            DedupError: When the call got no answer it can rely on: then **nothing may be taken as done**.
                A 4xx (``.rejected``: a bad stream or namespace, a number over 129 digits, too many
                ranges); a 503 (``.retry_after``); an answer that is not one list per range; no answer.
            TypeError, ValueError: When a range is not one (see :class:`SequenceRange`); nothing was sent.
        """
        body, asked = _wire.encode_ranges(ns, stream, ranges)
        return _wire.decode_done(self._post(self._ranges_check, body, self._json_headers), asked)

    def commit_ranges(self, ns: Optional[str], stream: str, ranges: Iterable[RangeLike]) -> None:
        """Records that ``ranges`` of a stream are done, once their output is durably written.

        Commits are idempotent, and overlapping or adjacent ranges merge: commit each batch
        :meth:`SequenceRange.after` the previous one so that a stream read in order is one stored range. A
        committed range is remembered for the namespace's window after its last commit. A crash between
        writing the output and this commit makes the batch be processed again: the output's own
        transaction (or an idempotent write) keeps that exact.

        Args:
            ns: The namespace; ``None`` or ``""`` for ``default``.
            stream: As for :meth:`check_ranges`.
            ranges: As for :meth:`check_ranges`.

        Raises:
            DedupError: When the commit is not known to be made: a 4xx committed nothing; after a 503 or
                no answer it may or may not have been made. Commit again;
                until a commit succeeds, the batch is not done.
            TypeError, ValueError: As for :meth:`check_ranges`.
        """
        body, asked = _wire.encode_ranges(ns, stream, ranges)
        _wire.decode_committed(self._post(self._ranges_commit, body, self._json_headers), len(asked))

    def close(self) -> None:
        """Closes every connection of every thread; a later call opens a new one."""
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            conn.close()

    def __enter__(self) -> DedupClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"DedupClient({self._url!r}, timeout={self._timeout})"

    def _post(self, path: str, body: bytes, headers: Dict[str, str]) -> bytes:
        """Sends ``body`` once; the answer's body when it is a 200, else :class:`DedupError`."""
        status, data, retry_after = self._exchange(path, body, headers)
        if status == 200:
            return data
        error = _wire.error_of(status, data, retry_after)
        if status == 401 and "Authorization" not in headers:
            hint = "this client sent no token: give it the agent's --token (DEDUP_TOKEN)"
            detail = f"{error.detail}; {hint}" if error.detail else hint
            error = DedupError(error.status, error.error, detail, error.retry_after)
        raise error

    def _exchange(self, path: str, body: bytes, headers: Dict[str, str]) -> Tuple[int, bytes, Optional[str]]:
        """One request and its answer: status, body, ``Retry-After``; a stale kept-alive connection is retried once."""
        for fresh in (False, True):
            conn = self._connection(fresh)
            reused = conn.sock is not None
            try:
                conn.request("POST", path, body=body, headers=headers)
                response = conn.getresponse()
                data = response.read()
                return response.status, data, response.getheader("Retry-After")
            except socket.timeout as e:
                conn.close()
                raise DedupError(
                    None, DedupError.TIMEOUT, f"no answer from {self._url} within {self._timeout:g}s"
                ) from e
            except _STALE as e:
                conn.close()
                if reused:
                    continue
                raise DedupError(None, DedupError.UNREACHABLE, f"{self._url}: {_describe(e)}") from e
            except (OSError, http.client.HTTPException) as e:
                conn.close()
                raise DedupError(None, DedupError.UNREACHABLE, f"{self._url}: {_describe(e)}") from e
        raise AssertionError("unreachable")  # pragma: no cover: the second pass returns or raises

    def _connection(self, fresh: bool) -> http.client.HTTPConnection:
        """This thread's connection (a new one in a process forked since it was made, or when ``fresh``)."""
        pid = os.getpid()
        held = getattr(self._local, "held", None)
        if held is not None and held[0] == pid and not fresh:
            kept: http.client.HTTPConnection = held[1]
            return kept
        if held is not None and held[0] == pid:
            held[1].close()
        # A connection inherited through fork() shares its socket with the parent: never use it, never close it.
        if self._https:
            conn: http.client.HTTPConnection = http.client.HTTPSConnection(
                self._host, self._port, timeout=self._timeout, context=self._ssl
            )
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=self._timeout)
        self._local.held = (pid, conn)
        with self._lock:
            self._connections.add(conn)
        return conn


def _variable(environ: Mapping[str, str], name: str) -> Optional[str]:
    """An environment variable without surrounding whitespace, or ``None`` when it is unset or empty."""
    value = environ.get(name, "").strip()
    return value or None


def _describe(e: BaseException) -> str:
    name = type(e).__name__
    text = str(e)
    return f"{name}: {text}" if text else name
