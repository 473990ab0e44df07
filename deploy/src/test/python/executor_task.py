"""The PySpark claim path as an executor runs it, without PySpark: ``dedup_client.spark.dedup_partition``
over one partition, with no url and no token, so that the client finds the agent in the environment alone
(``DEDUP_URL``, ``DEDUP_TOKEN``). Run by ExecutorPodIT in the executor's place in a pod: it claims the partition,
then the same again as a re-run task would, and prints the verdicts of each (``FIRST new=20 retry=0
duplicate=0``, ``AGAIN new=0 retry=20 duplicate=0``); a rejected claim prints ``REJECTED`` and the error, and
exits 3.

    python3 executor_task.py NAMESPACE ID_PREFIX COUNT   (with /worker/src mounted)
"""

import sys
from collections import Counter, namedtuple

sys.path[:0] = ["/worker/src"]

from dedup_client import DedupError, kafka_owner  # noqa: E402
from dedup_client.spark import dedup_partition  # noqa: E402

Row = namedtuple("Row", "key topic partition offset headers")  # a Kafka row read with includeHeaders


def task(ns: str, rows: list) -> str:
    verdicts: list = []
    kept = list(
        dedup_partition(
            iter(rows),
            ns=ns,
            id_of=lambda r: dict(r.headers)["message-id"].decode(),
            owner_of=lambda r: kafka_owner(r.topic, r.partition, r.offset),
            on_verdicts=verdicts.extend,
        )
    )
    assert len(kept) == len(rows) - verdicts.count("duplicate")
    n = Counter(verdicts)
    return f"new={n['new']} retry={n['retry']} duplicate={n['duplicate']}"


def main() -> None:
    ns, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rows = [Row(b"user-7", "clicks", 3, i, [("message-id", f"{prefix}-{i}".encode())]) for i in range(count)]
    try:
        print("FIRST", task(ns, rows), flush=True)
        print("AGAIN", task(ns, rows), flush=True)
    except DedupError as e:
        print("REJECTED", e, flush=True)
        sys.exit(3)


if __name__ == "__main__":
    main()
