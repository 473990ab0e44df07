/**
 * Worker code: a Spark Structured Streaming job to copy ({@link dev.dedup.examples.spark}), claiming its records at
 * the local agent with the public Java client before processing them, and a PostgreSQL sink that keeps
 * re-processing exact ({@link dev.dedup.examples.sink}), which the Kafka consumer loops of {@code dedup-kafka}
 * ({@link dev.dedup.kafka}) write to as a user's own sink would.
 *
 * <p>Why a module of its own: Spark and Kafka are the user's runtime, so they are {@code provided} here and stay out
 * of the agent's and the client's dependencies (the build allows this module nothing but {@code dedup-client} and
 * the libraries at run time: the client adds no Vert.x and no Netty to a Spark executor). Its {@code *PipelineIT}
 * tests run this code against real parts that the tests start: a KRaft broker, Spark in local mode, PostgreSQL,
 * {@code redis-server} and the agent jar.
 */
package dev.dedup.examples;
