/**
 * Deduplication for Spark (artifact {@code dedup-spark}): a transform of any {@code Dataset<Row>}, batch or
 * streaming, that claims each row at the executor's own agent and either drops the duplicates or adds the verdict
 * as a column. The id comes from a Kafka header or any column expression, the owner from the Kafka or Kinesis
 * source's columns, written as {@link dev.dedup.client.Owners} writes it.
 *
 * <p>Compiled for Java 11 against Spark 4 (Scala 2.13); the same jar runs on Spark 3.5 for Scala 2.12 and 2.13.
 * Spark is {@code provided}: at run time the library brings {@code dedup-client} alone.
 */
package dev.dedup.spark;
