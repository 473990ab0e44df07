package dev.dedup.examples.testing;

import org.apache.spark.sql.SparkSession;

/**
 * Spark in local mode inside the test JVM: two threads ({@code local[2,4]}: up to 4 attempts per task, so that a task
 * failure is retried as on a cluster), no UI, loopback only, two shuffle partitions.
 */
public final class SparkLocal {

    public static SparkSession start(String app) {
        return SparkSession.builder()
                .master("local[2,4]")
                .appName(app)
                .config("spark.ui.enabled", "false")
                .config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.sql.adaptive.enabled", "false")
                .config("spark.sql.streaming.metricsEnabled", "false")
                .getOrCreate();
    }

    private SparkLocal() {}
}
