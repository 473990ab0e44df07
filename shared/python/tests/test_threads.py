"""One client shared by threads (and by processes forked after it was made), against the real agent."""

from __future__ import annotations

import os
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import List

from dedup_client import DedupClient, Verdict
from processes import fresh

NS = "py-threads"


def test_threadsSharingAClient_eachIdIsNewForExactlyOneOwner(client: DedupClient) -> None:
    threads, rounds, per_batch = 8, 20, 50
    shared = [fresh("shared") for _ in range(rounds * per_batch)]
    start = threading.Barrier(threads)

    def worker(t: int) -> List[Verdict]:
        start.wait()
        verdicts: List[Verdict] = []
        for r in range(rounds):
            ids = shared[r * per_batch : (r + 1) * per_batch]
            # Every thread claims every shared id as its own copy, and a fresh id of its own.
            batch = [(id_, f"thread-{t}") for id_ in ids] + [(fresh("own"), f"thread-{t}")]
            answer = client.claim(NS, batch)
            assert answer[-1] == Verdict.NEW
            verdicts.extend(answer[:-1])
        return verdicts

    with ThreadPoolExecutor(threads) as pool:
        results = list(pool.map(worker, range(threads)))

    for i in range(len(shared)):
        tally = Counter(results[t][i] for t in range(threads))
        assert tally == {Verdict.NEW: 1, Verdict.DUPLICATE: threads - 1}, (shared[i], tally)


def test_aThreadKeepsOneConnectionAlive_acrossCalls(client: DedupClient) -> None:
    client.claim(NS, [(fresh(), "o")])
    conn = client._local.held[1]
    sock = conn.sock
    for _ in range(50):
        client.claim(NS, [(fresh(), "o")])
    assert client._local.held[1] is conn and conn.sock is sock


def test_threads_haveConnectionsOfTheirOwn(client: DedupClient) -> None:
    seen = []
    ready = threading.Barrier(4)

    def worker() -> None:
        client.claim(NS, [(fresh(), "o")])
        seen.append(client._local.held[1])
        ready.wait()  # all alive at once, so no connection object is reused

    workers = [threading.Thread(target=worker) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len({id(c) for c in seen}) == 4


def test_aForkedProcess_usesAConnectionOfItsOwn(client: DedupClient) -> None:
    id_ = fresh()
    assert client.claim(NS, [(id_, "parent")]) == ["new"]
    parent_conn = client._local.held[1]
    pid = os.fork()
    if pid == 0:  # the child: as a PySpark worker forked from its daemon
        code = 1
        try:
            ok = client.claim(NS, [(id_, "child"), (id_, "parent")]) == ["duplicate", "retry"]
            code = 0 if ok and client._local.held[1] is not parent_conn else 2
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # The parent's connection still works: the child never touched its socket.
    assert client.claim(NS, [(id_, "parent")]) == ["retry"]
    assert client._local.held[1] is parent_conn
