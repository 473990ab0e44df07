"""A client of the dedup agent for Python workers: standard library only.

Claims and releases batches of ``(message id, owner)`` at the agent beside the worker, which answers
``new``, ``retry`` or ``duplicate`` for each (the contract: ``docs/api.md`` of the project)::

    from dedup_client import DedupClient, Item, SequenceRange, Verdict, kafka_owner

    dedup = DedupClient()  # DEDUP_URL (default http://127.0.0.1:7070), DEDUP_TOKEN when set
    verdicts = dedup.claim("clicks", [Item("ce059644", kafka_owner("clicks", 3, 81418110694)),
                                      ("ce059644", kafka_owner("clicks", 5, 12345))])
    assert verdicts == [Verdict.NEW, Verdict.DUPLICATE]

and, for a worker that reads an ordered stream in batches, checks and commits ranges of its sequence
numbers::

    dedup.commit_ranges("orders", "shardId-000000000003", [SequenceRange(100, 199)])
    assert dedup.check_ranges("orders", "shardId-000000000003", [(150, 250)]) == [[SequenceRange(150, 199)]]

Every failed call raises :class:`DedupError`, and then nothing the worker may rely on was decided.
:class:`Claims` sends a call the agent does not answer again, with the same items, for a worker's patience.

The owner of a delivery is written by one function per source, so that every worker of a namespace
writes it alike (a re-read whose owner is written otherwise is answered ``duplicate``, and lost):
:func:`kafka_owner`, :func:`kinesis_owner`, :func:`sqs_owner`, :func:`rabbitmq_owner`,
:func:`rabbitmq_stream_owner`.

Two modules build on the client, each importing its framework only when called: :mod:`dedup_client.spark`
drops duplicates from a PySpark DataFrame (``claim_and_keep``, ``with_verdicts``), :mod:`dedup_client.kafka`
runs a Kafka consumer loop (``consume``) with kafka-python or confluent-kafka.
"""

from ._claims import Claims
from ._client import DedupClient
from ._errors import DedupError
from ._owners import kafka_owner, kinesis_owner, rabbitmq_owner, rabbitmq_stream_owner, sqs_owner
from ._types import Item, SequenceRange, Verdict

__all__ = [
    "Claims",
    "DedupClient",
    "DedupError",
    "Item",
    "SequenceRange",
    "Verdict",
    "kafka_owner",
    "kinesis_owner",
    "rabbitmq_owner",
    "rabbitmq_stream_owner",
    "sqs_owner",
]
__version__ = "0.1.0"
