/**
 * JMH micro-benchmarks of the claim path's hot pieces: decoding a request body, fingerprinting ids,
 * routing a fingerprint to a bucket and a shard, and the near-cache in front of Redis. They run from the
 * benchmarks' own jar (artifact {@code dedup-benchmarks}, module {@code loadtest/jmh}):
 * <pre>
 * mvn -B -DskipTests package
 * java -cp loadtest/jmh/target/dedup-benchmarks.jar org.openjdk.jmh.Main 'dev.dedup.benchmarks.jmh' -f 1 -wi 3 -i 5
 * </pre>
 * Each class's javadoc says what one operation is. End-to-end figures come from the load generator, not
 * from here: these tell where a change moves the cost of one piece.
 */
package dev.dedup.benchmarks.jmh;
