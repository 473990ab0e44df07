/**
 * What stays the user's own when the libraries do the claiming: a Spark Structured Streaming job around {@code
 * dedup-spark}'s transform ({@link dev.dedup.examples.spark}), and a PostgreSQL sink that keeps re-processing exact
 * ({@link dev.dedup.examples.sink}), which the job and the Kafka consumer loops of {@code dedup-kafka} ({@link
 * dev.dedup.kafka}) write to as a user's own sink would.
 *
 * <p>Why a module of its own: Spark and Kafka are the user's runtime, so they are {@code provided} here and stay out
 * of the agent's and the client's dependencies (the build allows this module nothing but {@code dedup-client} and
 * the libraries at run time: the client adds no Vert.x and no Netty to a Spark executor). Its {@code *PipelineIT}
 * tests run this code against real parts that the tests start: a KRaft broker, Spark in local mode, PostgreSQL,
 * {@code redis-server} and the agent jar.
 */
package dev.dedup.examples;
