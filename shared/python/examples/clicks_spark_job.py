"""A Structured Streaming job that writes each click once to Parquet: what a user of ``dedup_client.spark``
writes.

    spark-submit --py-files dedup_client.zip clicks_spark_job.py BOOTSTRAP TOPIC OUTPUT CHECKPOINT

Each executor claims at the agent of its pod (``DEDUP_URL``, ``DEDUP_TOKEN``: the executor pod template's).
The id is the producer's ``message-id`` header, the owner each row's topic, partition and offset. A batch that
Spark runs again after a failure claims ``retry`` and keeps its rows again: each batch overwrites its own folder,
so its output is written once whatever the number of runs.
"""

from __future__ import annotations

import sys

from dedup_client.spark import claim_and_keep


def write_batch(batch, batch_id: int, output: str) -> None:
    unique = claim_and_keep(batch, "clicks")
    unique.drop("headers").write.mode("overwrite").parquet(f"{output}/batch={batch_id}")


def main(bootstrap: str, topic: str, output: str, checkpoint: str) -> None:
    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("clicks").getOrCreate()
    clicks = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("includeHeaders", "true")
        .load()
    )
    query = (
        clicks.writeStream.foreachBatch(lambda batch, batch_id: write_batch(batch, batch_id, output))
        .option("checkpointLocation", checkpoint)
        .start()
    )
    query.awaitTermination()


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
