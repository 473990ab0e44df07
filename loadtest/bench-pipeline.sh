#!/usr/bin/env bash
# The pipeline beside Spark's own dedup at its best: Kafka (KRaft) → Spark Structured Streaming in local mode →
# PostgreSQL at a constant produce rate, once with SparkDedupJob claiming at the agent (embedded store; and on
# three Redis shards with SIDES=ours-embedded,ours-redis-3,spark-rocksdb) and once with
# withWatermark(event time, WINDOW).dropDuplicatesWithinWatermark("id") on the RocksDB state store with changelog
# checkpointing. The sides run one after the other at the same rate, each on a topic of its own, its Spark job in a
# JVM of its own. Prints a Markdown table; writes loadtest/target/pipeline-bench-<time>.json and .tsv.
#
# Builds nothing: run `mvn -B -DskipTests package` first (the agent jar, the examples' test classes and their
# classpath file). Do not build while it runs: the Spark jobs start from shared/examples/target. Needs PostgreSQL
# on 127.0.0.1:5432 (user postgres, trust) and, for the Redis side, redis-server.
#
#   loadtest/bench-pipeline.sh          # RATE ids/s for DURATION, WINDOW
#   loadtest/bench-pipeline.sh short    # 200 ids/s, a 20 s window, 40 s of load per side
#   RATES="2000 4000 8000" loadtest/bench-pipeline.sh   # one run per rate, then which side kept up at which
#
# Environment: RATE (unique ids a second, default 1000), WINDOW (default 10m: the agent's --window and Spark's
# watermark delay; late copies and late originals come 0.3 to 0.6 of it late), DURATION (default 30m of writes per
# side), TRIGGER (micro-batch interval, default 5s), PARTITIONS (default 4), SIDES (default
# ours-embedded,spark-rocksdb; also ours-redis-3, and spark-3.5-rocksdb: Spark's own on Spark 3.5 for Scala 2.13,
# which needs shared/examples/spark-3.5 built), SHARD_ROUND_TRIP (0; e.g. 0.3ms or 1ms: ours-redis-3's shards behind
# loadtest's delaying proxy, that much further away, SHARD_JITTER more or less), KILL_AT (kill -9 of each side's Spark job that long into the stream, then a restart
# from its checkpoint; default 0, none), BENCH_JAVA_OPTS (the main JVM's flags, -Xmx2g; its ledger check holds a side's ids: past about 3 M unique ids a
# side give it -Xmx6g). Note that Kafka, Spark, the agent
# and PostgreSQL share this machine's cores.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-pipeline
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "${1:-}" = short ]; then
  : "${RATE:=200}" "${WINDOW:=20s}" "${DURATION:=40s}" "${TRIGGER:=2s}"
fi
examples="$root/shared/examples"
for f in "$agent_jar" "$examples/target/test-classes/dev/dedup/examples/bench/PipelineBench.class" \
  "$examples/target/test-classpath.txt"; do
  if [ ! -e "$f" ]; then
    echo "$name: $f is missing; run 'mvn -B -DskipTests package' first" >&2
    exit 2
  fi
done
# the agent from the work directory, so that a build cannot swap it under a running agent
cp "$agent_jar" "$work/dedup-agent.jar"
if [ "${SHARD_ROUND_TRIP:-0}" != 0 ]; then
  [ -f "$loadtest_jar" ] || { echo "$name: $loadtest_jar is missing; run 'mvn -B -DskipTests package' first" >&2; exit 2; }
  cp "$loadtest_jar" "$work/dedup-loadtest.jar"
fi
mkdir -p "$root/loadtest/target"

# What Spark needs on Java 17: the examples' failsafe flags (their POM's spark.java17.flags), for the jobs' JVMs.
spark_flags="$(sed -n 's:.*<spark.java17.flags>\(.*\)</spark.java17.flags>.*:\1:p' "$examples/pom.xml")"
echo "$name: $(lscpu | grep 'Model name' | sed 's/Model name: *//'), $(nproc) cores; work in $work" >&2

cd "$examples"
# One run of every side at rate $1; its results go to their own directory.
run_at() {
  local out="$work/results-$1" status=0
  mkdir -p "$out" "$work/run-$1"
  # shellcheck disable=SC2086
  java ${BENCH_JAVA_OPTS:--Xmx2g} $spark_flags \
    -Dpipeline.agent.jar="$work/dedup-agent.jar" \
    -Dpipeline.classpath.file="$examples/target/test-classpath.txt" \
    -Dpipeline.spark.jvm.flags="$spark_flags" \
    -Dpipeline.delay.proxy.jar="$work/dedup-loadtest.jar" \
    -cp "target/test-classes:target/classes:$(cat target/test-classpath.txt)" \
    dev.dedup.examples.bench.PipelineBench \
    --rate "$1" --window "${WINDOW:-10m}" --duration "${DURATION:-30m}" --trigger "${TRIGGER:-5s}" \
    --partitions "${PARTITIONS:-4}" --sides "${SIDES:-ours-embedded,spark-rocksdb}" --kill-at "${KILL_AT:-0}" \
    --shard-round-trip "${SHARD_ROUND_TRIP:-0}" --shard-jitter "${SHARD_JITTER:-0}" \
    --out "$out" --work "$work/run-$1" &
  pids+=($!)
  wait "$!" || status=$?
  cp "$out"/pipeline-bench-* "$root/loadtest/target/"
  return "$status"
}

if [ -z "${RATES:-}" ]; then
  run_at "${RATE:-1000}"
  exit
fi
# The sweep: a side kept up at a rate when a batch read to the topic's end within two triggers of the last record
# written (the run's exit status says when one did not, so it is not this script's).
for rate in $RATES; do
  run_at "$rate" || true
done
python3 - "$work" ${RATES} <<'PY'
import json, sys, pathlib
work, rates = pathlib.Path(sys.argv[1]), sys.argv[2:]
print("| ids/s | side | kept up | drain s | lag at the last record | batch p50 / p99 ms | job CPU µs/id | agent CPU µs/id | proxy CPU µs/id | lost, twice |")
print("|---|---|---|---|---|---|---|---|---|---|")
for rate in rates:
    for f in sorted((work / f"results-{rate}").glob("pipeline-bench-*.json")):
        for line in f.read_text().splitlines():
            run = json.loads(line); r = run["result"]; unique = max(r["unique"], 1)
            agent = "—" if r["agentCpuMillis"] < 0 else f'{r["agentCpuMillis"] * 1000 / unique:.1f}'
            proxy = "—" if r["proxyCpuMillis"] < 0 else f'{r["proxyCpuMillis"] * 1000 / unique:.1f}'
            trigger_ms = float(run["trigger"].removeprefix("PT").removesuffix("S")) * 1000
            kept = r["caughtUp"] and r["drainMillis"] <= 2 * trigger_ms
            print(f'| {run["rate"]:,} | {r["side"]} | {"yes" if kept else "no"} | '
                  f'{r["drainMillis"] / 1000:.1f} | {r["lagAtEnd"]:,} | {r["batchP50Ms"]} / {r["batchP99Ms"]} | '
                  f'{r["jobCpuMillis"] * 1000 / unique:.1f} | {agent} | {proxy} | {r["lost"]}, {r["countedTwice"]} |')
PY
