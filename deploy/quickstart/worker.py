"""The quickstart's worker: a producer and a consumer of one Kafka-like partition, in one process, that ask
the agent what to do with each message they read (dedup_client, the Python client of shared/python).

The story it tells, and checks:

1. The producer sends order-1, order-2 and order-3; the consumer reads them at offsets 0, 1 and 2 and claims
   them: new, new, new.
2. The producer's send of order-2 timed out although the broker had stored it, so it sent order-2 again: a
   copy at offset 3. The consumer crashed after processing offset 2 but before committing it, so it reads
   again from offset 2: order-3 at the same offset (retry: process it again, its first run did not finish),
   order-2 at offset 3 (duplicate: another copy, skip it), and order-4 at offset 4 (new).

Each run claims in a namespace of its own, so that running it again against the same Redis tells the same
story. It exits 0 when the agent answered as above, 1 otherwise.
"""

import json
import os
import sys
import time
import urllib.request
import uuid

from dedup_client import DedupClient, Item, Verdict, kafka_owner

TOPIC, PARTITION = "orders", 0
ACTION = {Verdict.NEW: "process it", Verdict.RETRY: "process it again", Verdict.DUPLICATE: "skip it"}


def wait_until_ready(url: str, seconds: float) -> None:
    """The agent answers /health/ready with 200 once its Redis answers; until then the worker waits."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url + "/health/ready", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            sys.exit(f"the agent at {url} was not ready within {seconds:.0f} s")
        time.sleep(0.5)


def claim(dedup: DedupClient, ns: str, log: list, offsets: range) -> list:
    """Claims the messages of the log at these offsets as one batch, and prints each verdict."""
    items = [Item(log[o], kafka_owner(TOPIC, PARTITION, o)) for o in offsets]
    verdicts = dedup.claim(ns, items)
    for item, verdict in zip(items, verdicts):
        print(f"  {item.id:<8} at {item.owner:<11} -> {verdict.value:<9}  {ACTION[verdict]}")
    return verdicts


def read_token(path: str) -> str:
    """The token the agent requires: the first line of its --token-file, which compose.yaml's token service wrote."""
    with open(path, encoding="ascii") as f:
        return f.readline().strip()


def main() -> None:
    dedup = DedupClient(token=read_token(os.environ["DEDUP_TOKEN_FILE"]))  # and DEDUP_URL, from compose.yaml
    wait_until_ready(dedup.url, 120)
    ns = f"quickstart-{uuid.uuid4().hex[:8]}"
    print(f"agent {dedup.url} ready; namespace {ns}")

    log = ["order-1", "order-2", "order-3"]
    print(f"\nproducer: sent {', '.join(log)}; consumer: reads offsets 0-2")
    first = claim(dedup, ns, log, range(0, 3))

    log += ["order-2", "order-4"]
    print("\nproducer: re-sent order-2 after a timeout, then sent order-4")
    print("consumer: crashed before committing offset 2, reads again from offset 2")
    second = claim(dedup, ns, log, range(2, 5))

    expected = [[Verdict.NEW] * 3, [Verdict.RETRY, Verdict.DUPLICATE, Verdict.NEW]]
    if [first, second] != expected:
        print("\nunexpected verdicts:", json.dumps([[str(v) for v in b] for b in (first, second)]))
        sys.exit(1)
    print("\neach order processed, order-3 twice (its first run did not finish), the copy of order-2 skipped")


if __name__ == "__main__":
    main()
