#!/usr/bin/env bash
# Two builds of the agent against each other, end to end, in one session: the ratio of their throughputs
# on cold and retry passes, on the embedded store and on one local Redis shard.
#
# Builds nothing: AGENT_A and AGENT_B name the two agent jars (B defaults to agent/target/dedup-agent.jar;
# copy the other build's jar somewhere first). Starts one redis-server (nothing persisted, noeviction) on a
# free port. Per round and store, each side in turn (A first in odd rounds, B first in even ones) gets a
# fresh agent (a fresh data directory, or the shard flushed) and the load generator's `--scenario
# cold,retry` for each batch size in BATCHES. Prints a table of medians over the rounds, B/A first, then
# every JSON line. Every process is stopped by its PID however the script ends. Exit status: the load
# generator's worst (3 when any verdict was wrong).
#
# Environment: AGENT_A (required), AGENT_B, ROUNDS (default 3), IDS (default 2000000), WARMUP (default
# 200000), WORKERS (default 4), BATCHES (default "10000 1000"), STORES (default "embedded redis"),
# NEAR_CACHE (default 4194304), EVENT_TIME (default 1: on Redis, the namespace filed by event time;
# 0: the fingerprint layout), SLOTS (embedded slots, default 16777216),
# AGENT_JAVA_OPTS, LOADTEST_JAVA_OPTS. Both sides share this machine's cores with the shard and the
# generator: compare the ratios.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
name=compare-builds
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=../bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

jar_a="${AGENT_A:?AGENT_A must name the first agent jar}"
jar_b="${AGENT_B:-$root/agent/target/dedup-agent.jar}"
rounds="${ROUNDS:-3}"
ids="${IDS:-2000000}"
warmup="${WARMUP:-200000}"
workers="${WORKERS:-4}"
near_cache="${NEAR_CACHE:-4194304}"
slots="${SLOTS:-16777216}"
event_args=()
layout_args=()
if [ "${EVENT_TIME:-1}" = 1 ]; then
  layout_args=(--namespace-event-rate loadtest=33334)
  event_args=(--event-time)
fi
agent_jar="$jar_a"
require_jars
for jar in "$jar_a" "$jar_b"; do
  [ -f "$jar" ] || { echo "$name: $jar is missing" >&2; exit 2; }
done
redis_port="$(free_port)"
start_redis "$redis_port"
echo "$name: A=$jar_a B=$jar_b, redis on $redis_port, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# stop_agent PID: SIGTERM, then SIGKILL after 10 s.
stop_agent() {
  kill -TERM "$1" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$1" 2>/dev/null || true
}

# run_side SIDE STORE ROUND: a fresh agent of that side on that store, every batch size.
run_side() {
  local side=$1 store=$2 round=$3 port batch line agent_pid
  local args=() sends=()
  if [ "$side" = A ]; then agent_jar="$jar_a"; else agent_jar="$jar_b"; fi
  port="$(free_port)"
  if [ "$store" = redis ]; then
    redis-cli -p "$redis_port" flushall >/dev/null
    args=(--redis "redis://127.0.0.1:$redis_port" --near-cache-size "$near_cache" "${layout_args[@]}")
    sends=("${event_args[@]}")
  else
    rm -rf "$work/data"
    args=(--data-dir "$work/data" --embedded-slots "$slots")
  fi
  start_agent "$port" "${args[@]}"
  agent_pid="${pids[-1]}"
  for batch in ${BATCHES:-10000 1000}; do
    lines=()
    run_load --target "http://127.0.0.1:$port" --scenario cold,retry --ids "$ids" --warmup "$warmup" \
      --workers "$workers" --batch "$batch" --binary "${sends[@]}"
    for line in "${lines[@]}"; do echo "$side $store $batch $round $line"; done >>"$work/results"
  done
  stop_agent "$agent_pid"
  unset 'pids[-1]'
}

for round in $(seq 1 "$rounds"); do
  for store in ${STORES:-embedded redis}; do
    if [ $((round % 2)) = 1 ]; then order="A B"; else order="B A"; fi
    for side in $order; do
      echo "$name: round $round, $store, side $side (load $(cut -d' ' -f1 /proc/loadavg))" >&2
      run_side "$side" "$store" "$round"
    done
  done
done

# rates SIDE STORE BATCH SCENARIO: ids/s of every round, one a line
rates() {
  grep "^$1 $2 $3 " "$work/results" | grep "\"scenario\":\"$4\"" | while read -r l; do field "$l" ids_per_s; done
}

echo
printf '%-9s %6s %-6s %7s %12s %12s %s\n' store batch pass "B/A" "A ids/s" "B ids/s" "per round (A | B)"
for store in ${STORES:-embedded redis}; do
  for batch in ${BATCHES:-10000 1000}; do
    for scenario in cold retry; do
      a="$(rates A "$store" "$batch" "$scenario" | median)"
      b="$(rates B "$store" "$batch" "$scenario" | median)"
      printf '%-9s %6s %-6s %7s %12.0f %12.0f %s | %s\n' "$store" "$batch" "$scenario" \
        "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", (a > 0 ? b / a : 0)}')" "$a" "$b" \
        "$(rates A "$store" "$batch" "$scenario" | awk '{printf "%.0f ", $1}')" \
        "$(rates B "$store" "$batch" "$scenario" | awk '{printf "%.0f ", $1}')"
    done
  done
done
echo
cat "$work/results"
exit "$status"
