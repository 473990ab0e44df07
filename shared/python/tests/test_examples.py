"""The user jobs of ``examples/``: the consumer's sink with the real loop and agent over the stand-in consumer;
the PySpark job's imports, functions and calls of ``dedup_client.spark`` (it needs a SparkSession to run)."""

from __future__ import annotations

import clicks_consumer
import clicks_spark_job
from consumers import StandInConsumer, kafka_log
from dedup_client import DedupClient
from dedup_client.kafka import TopicPartition, consume
from processes import REPO, fresh
from snippets import spark_calls

EXAMPLES = REPO / "shared" / "python" / "examples"


def test_theConsumersSink_countsEachMessageOnce_acrossARestartBeforeTheCommit(client: DedupClient, tmp_path) -> None:
    ids = [fresh("msg") for _ in range(8)]
    p0, p1 = TopicPartition("clicks", 0), TopicPartition("clicks", 1)
    logs = {p0: kafka_log(0, ids[:5]), p1: kafka_log(1, ids[3:])}  # ids[3:5] written twice
    sink = clicks_consumer.ClickCounts(str(tmp_path / "clicks.db"))

    crashed = StandInConsumer(logs, seek_raises=True)
    crashed.commit = lambda offsets=None: None  # the process dies after the sink, before each commit
    consume(crashed, "py-example", sink, client=client, max_records=3, should_stop=crashed.at_end)
    again = StandInConsumer(logs, seek_raises=True)  # restarted: everything is read again, claimed retry
    consume(again, "py-example", sink, client=client, max_records=3, should_stop=again.at_end)

    assert sink.db.execute("SELECT user, n FROM clicks").fetchall() == [("user-7", 8)]
    assert sorted(sink.db.execute("SELECT * FROM offsets")) == [("clicks", 0, 5), ("clicks", 1, 5)]
    assert again.committed == {p0: 5, p1: 5}


def test_theSparkJob_importsWithoutPySpark_andCallsTheTransformAsItIs() -> None:
    assert callable(clicks_spark_job.write_batch) and callable(clicks_spark_job.main)
    assert spark_calls((EXAMPLES / "clicks_spark_job.py").read_text()) == ["claim_and_keep"]
