"""A client of the dedup agent for Python workers: standard library only.

Claims and releases batches of ``(message id, owner)`` at the agent beside the worker, which answers
``new``, ``retry`` or ``duplicate`` for each (the contract: ``docs/api.md`` of the project)::

    from dedup_client import DedupClient, Item, SequenceRange, Verdict

    dedup = DedupClient()  # DEDUP_URL (default http://127.0.0.1:7070), DEDUP_TOKEN when set
    verdicts = dedup.claim("clicks", [Item("ce059644", "3:81418110694"), ("ce059644", "5:12345")])
    assert verdicts == [Verdict.NEW, Verdict.DUPLICATE]

and, for a worker that reads an ordered stream in batches, checks and commits ranges of its sequence
numbers::

    dedup.commit_ranges("orders", "shardId-000000000003", [SequenceRange(100, 199)])
    assert dedup.check_ranges("orders", "shardId-000000000003", [(150, 250)]) == [[SequenceRange(150, 199)]]

Every failed call raises :class:`DedupError`, and then nothing the worker may rely on was decided.
"""

from ._client import DedupClient
from ._errors import DedupError
from ._types import Item, SequenceRange, Verdict

__all__ = ["DedupClient", "DedupError", "Item", "SequenceRange", "Verdict"]
__version__ = "0.1.0"
