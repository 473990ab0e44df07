#!/usr/bin/env bash
# Flink's and Kafka Streams' own dedup at their best beside each engine with ours, at a constant produce rate from a
# KRaft broker (Kafka's jars, in a JVM of its own). Sides, one after the other, each on topics of its own and its job
# in a JVM of its own (-Xmx1g):
#   flink-own-heap     keyed state by message id with a TTL of WINDOW, heap state backend (full checkpoints)
#   flink-own-rocksdb  the same on RocksDB with incremental checkpoints
#   flink-ours         dedup-flink's operator after the source, one agent on its embedded store
#   streams-own        re-keyed by id and repartitioned, a RocksDB window store (changelogged) of the ids seen
#   streams-ours       dedup-kafka-streams' processor after the source, one agent on its embedded store
# Both engines exactly once: Flink's transactional KafkaSink, Kafka Streams' exactly_once_v2; the output read with
# read_committed and checked against the ledger. Exits 1 when a side did not catch up or a side of ours was not
# exact. Prints a Markdown table; writes loadtest/target/engine-bench-<time>.json
# and .tsv.
#
# Builds nothing: run `mvn -B -DskipTests package` first (the agent jar, the examples' and the Flink examples' test
# classes and their classpath files). Do not build while it runs: the jobs start from shared/examples*/target.
#
#   loadtest/bench-engines.sh          # RATE ids/s for DURATION, WINDOW, every side
#   loadtest/bench-engines.sh short    # 200 ids/s, a 20 s window, 40 s of load per side
#
# Environment: RATE (unique ids a second, default 1000), WINDOW (default 1m: Flink's TTL, the window store's
# retention and the agent's --window; late copies and late originals come 0.3 to 0.6 of it late), DURATION (default
# 2m of writes per side), CHECKPOINT (Flink's checkpoint interval, default 10s), PARTITIONS (default 4), PARALLELISM
# (Flink's, default 2), SIDES (default all five, comma-separated), KILL_AT (kill -9 of each side's job that long into
# the stream, then a restart at once; default 0, none), BENCH_JAVA_OPTS (the main JVM's flags, -Xmx1g). Kafka, the
# jobs and the agent share this machine's cores: compare the rows of one run.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-engines
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-engines.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "${1:-}" = short ]; then
  : "${RATE:=200}" "${WINDOW:=20s}" "${DURATION:=40s}" "${CHECKPOINT:=5s}"
fi
examples="$root/shared/examples"
flink="$examples/flink"
for f in "$agent_jar" "$flink/target/test-classes/dev/dedup/examples/engines/EngineBench.class" \
  "$flink/target/test-classpath.txt" "$examples/target/test-classpath.txt"; do
  if [ ! -e "$f" ]; then
    echo "$name: $f is missing; run 'mvn -B -DskipTests package' first" >&2
    exit 2
  fi
done
# the agent from the work directory, so that a build cannot swap it under a running agent
cp "$agent_jar" "$work/dedup-agent.jar"
mkdir -p "$root/loadtest/target" "$work/results"
echo "$name: $(lscpu | grep 'Model name' | sed 's/Model name: *//'), $(nproc) cores; work in $work" >&2

cd "$flink"
status=0
# shellcheck disable=SC2086
java ${BENCH_JAVA_OPTS:--Xmx1g} \
  -Dpipeline.agent.jar="$work/dedup-agent.jar" \
  -Dpipeline.classpath.file="$examples/target/test-classpath.txt" \
  -Dpipeline.flink.classpath.file="$flink/target/test-classpath.txt" \
  -cp "target/test-classes:$(cat target/test-classpath.txt)" \
  dev.dedup.examples.engines.EngineBench \
  --rate "${RATE:-1000}" --window "${WINDOW:-1m}" --duration "${DURATION:-2m}" --checkpoint "${CHECKPOINT:-10s}" \
  --partitions "${PARTITIONS:-4}" --parallelism "${PARALLELISM:-2}" \
  --sides "${SIDES:-flink-own-heap,flink-own-rocksdb,flink-ours,streams-own,streams-ours}" \
  --kill-at "${KILL_AT:-0}" --out "$work/results" --work "$work/run" &
pids+=($!)
wait "$!" || status=$?
cp "$work/results"/engine-bench-* "$root/loadtest/target/" 2>/dev/null || true
exit "$status"
