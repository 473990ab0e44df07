#!/usr/bin/env bash
# The benchmark users will run: the agent with its DEFAULT settings against Tapjoy's design on the same three
# local Redis shards, at the batch sizes consumers poll with and several concurrent workers, reporting
# throughput, latency, and what each id costs: the shards' CPU (what a user pays for when adding shards) and
# the agent's own CPU (what it takes from the executor beside it), both from /proc.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Starts three redis-server processes (nothing
# persisted, noeviction) and agent/target/dedup-agent.jar --redis on them (plus AGENT_ARGS, printed with every
# row: empty means the defaults). First the agent is warmed up, as a sidecar that has been running is: passes
# of AGENT_WARMUP fresh ids, cold then retry, not measured, until its JIT compilers settle (warm_agent in
# bench-lib.sh; a fixed 3,000,000 ids left them compiling through the first rounds on a slow day, and the
# agent's CPU per cold id read 3.1, 2.3 and 1.7 µs in consecutive rounds). Then per round, batch size and
# worker count, for each side (the agent and direct: Tapjoy's Lua sent straight to the shards; the agent first
# in odd rounds, direct first in even ones), on shards flushed of everything but their topology records:
#   1. a warm-up of WARMUP fresh ids, cold then retry (not measured: both JVMs' JIT, connections, Redis's
#      allocator), in the same load generator run as
#   2. cold: IDS fresh ids; then retry: the same ids and owners again, each measured apart, with the shards'
#      and the agent's CPU time (utime+stime from /proc, measured by the load generator) per id.
# The agent's rows also give the mean claims a fingerprint bucket held when the run's claim calls read it
# (its dedup_redis_bucket_claims_read_total over dedup_redis_buckets_read_total, over the warm-up, cold and
# retry passes; 0 with event time): the benchmark starts from flushed shards, so its buckets are nearly
# empty, where Redis CPU per new id is lowest (bench-redis-fill.sh measures it as they fill).
# Then, per side, the latency at a fixed offered load of half the cold maximum measured at RATE_BATCH ids a
# batch and RATE_WORKERS workers (`--rate`). Prints a Markdown table of medians over ROUNDS, then every
# JSON line. Every process is stopped by its PID however the script ends. Exit status: the load
# generator's worst (3 when any verdict was wrong).
#
# Environment: IDS (1000000), WARMUP (200000), AGENT_WARMUP (1000000 ids a warm-up pass; 0 skips the warm-up),
# WARMUP_PASSES (10 at most), BATCHES ("500 1000 10000"), WORKER_COUNTS ("1 4 16"), ROUNDS (3), EVENT_TIME (0:
# the agent's default fingerprint layout and no event times; 1: the namespace filed by event time,
# --namespace-event-rate loadtest=33334, and the generator sends event times; Tapjoy's side always files by
# event time), RATE_BATCH (1000), RATE_WORKERS (4), AGENT_ARGS (more agent flags: every one is a non-default
# setting and is printed), AGENT_JAVA_OPTS, LOADTEST_JAVA_OPTS, REDIS_SERVER.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-matrix
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

ids="${IDS:-1000000}"
warmup="${WARMUP:-200000}"
agent_warmup="${AGENT_WARMUP:-1000000}"
batches="${BATCHES:-500 1000 10000}"
worker_counts="${WORKER_COUNTS:-1 4 16}"
rounds="${ROUNDS:-3}"
event_time="${EVENT_TIME:-0}"
rate_batch="${RATE_BATCH:-1000}"
rate_workers="${RATE_WORKERS:-4}"
layout_args=()
event_args=()
if [ "$event_time" = 1 ]; then
  layout_args=(--namespace-event-rate loadtest=33334)
  event_args=(--event-time)
fi
settings="defaults"
[ "$event_time" = 1 ] && settings="--namespace-event-rate loadtest=33334"
[ -n "${AGENT_ARGS:-}" ] && settings="$settings ${AGENT_ARGS}"

require_jars
start_shards 3
shard_pids=("${pids[@]}")
port="$(free_port)"
# shellcheck disable=SC2086
start_agent "$port" --redis "$shards" "${layout_args[@]}" ${AGENT_ARGS:-}
agent_pid="${pids[-1]}"
cpu_model="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "$name: agent on port $port ($settings), shards $shards, $(nproc) cores ($cpu_model), $ids ids," \
  "batches $batches, workers $worker_counts, $rounds rounds" >&2

# run_side SIDE BATCH WORKERS ROUND: on flushed shards, one load generator run: a warm-up of WARMUP fresh ids
# (cold and retry, in the same JVM, not measured), then cold and retry over IDS fresh ids, each with the
# shards' and the agent's CPU time per id (--cpu-redis, --cpu-agent); its JSON lines go to rows.jsonl.
run_side() {
  local side=$1 batch=$2 workers=$3 round=$4 target line
  if [ "$side" = agent ]; then
    target=(--target "http://127.0.0.1:$port" "${event_args[@]}" --cpu-agent "$agent_pid")
  else
    target=(--direct "$shards")
  fi
  flush_shards
  lines=()
  local reads seen=0
  reads="$(bucket_reads "$port")"
  run_load --scenario cold,retry --ids "$ids" --warmup "$warmup" --batch "$batch" --workers "$workers" \
    --cpu-redis "$(IFS=,; echo "${shard_pids[*]}")" "${target[@]}"
  if [ "$side" = agent ]; then
    # The mean claims a fingerprint bucket held when the run's claim calls read it (0: event time).
    seen="$(claims_per_bucket_read "$port" "$reads")"
  fi
  for line in "${lines[@]}"; do
    echo "{\"side\":\"$side\",\"batch\":$batch,\"workers\":$workers,\"round\":$round,\"claims_seen\":$seen,\"run\":$line}" \
      >>"$work/rows.jsonl"
  done
}

warmed="not warmed up"
if [ "$agent_warmup" -gt 0 ]; then
  echo "$name: warming the agent up: passes of $agent_warmup ids, cold then retry, until its JIT settles" >&2
  warm_agent "$port" "$agent_pid" "$agent_warmup" "${event_args[@]}"
  warmed="warmed up with $warm_passes passes of $agent_warmup ids (JIT compilers $warm_compile s in the last)"
fi

for round in $(seq 1 "$rounds"); do
  for batch in $batches; do
    for workers in $worker_counts; do
      # Odd rounds run the agent first, even rounds Tapjoy's design: a slow moment of the shared machine
      # does not always fall on the same side.
      sides="agent direct"
      [ $((round % 2)) -eq 0 ] && sides="direct agent"
      for side in $sides; do
        echo "$name: round $round, batch $batch, $workers workers: $side" >&2
        run_side "$side" "$batch" "$workers" "$round"
      done
    done
  done
done

# med SIDE BATCH WORKERS SCENARIO FIELD: the median of FIELD over the rounds.
med() {
  grep -h "\"side\":\"$1\",\"batch\":$2,\"workers\":$3," "$work/rows.jsonl" | grep "\"scenario\":\"$4\"" |
    while read -r l; do field "$l" "$5"; done | median
}

# Latency at half the cold maximum, per side, at RATE_BATCH and RATE_WORKERS (JVMs warm by now).
for side in agent direct; do
  max="$(med "$side" "$rate_batch" "$rate_workers" cold ids_per_s)"
  if [ -z "$max" ] || [ "$max" = 0 ]; then
    continue
  fi
  rate="$(awk -v m="$max" 'BEGIN {printf "%d", m / 2}')"
  if [ "$side" = agent ]; then
    target=(--target "http://127.0.0.1:$port" "${event_args[@]}")
  else
    target=(--direct "$shards")
  fi
  flush_shards
  echo "$name: $side at $rate ids/s (half its maximum)" >&2
  lines=()
  run_load --scenario cold --ids "$ids" --warmup "$warmup" --batch "$rate_batch" --workers "$rate_workers" --rate "$rate" \
    "${target[@]}" --run-id "rate-$side"
  for line in "${lines[@]}"; do
    echo "{\"side\":\"$side\",\"rate\":$rate,\"run\":$line}" >>"$work/rate.jsonl"
  done
done

errors=0
while read -r l; do
  errors=$(( errors + $(field "$l" false_drops) + $(field "$l" missed_duplicates) ))
done <"$work/rows.jsonl"

echo
echo "$(date -u +%F) · $cpu_model, $(nproc) cores · agent: $settings, $warmed ·" \
  "$ids ids a run after a warm-up run of $warmup, medians of $rounds · ledger errors: $errors"
echo
echo "| batch | workers | scenario | agent ids/s | Tapjoy ids/s | agent/Tapjoy | agent p50 / p99 ms | Tapjoy p50 / p99 ms | Redis CPU µs/id agent | Redis CPU µs/id Tapjoy | agent CPU µs/id | claims per bucket read |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for batch in $batches; do
  for workers in $worker_counts; do
    for scenario in cold retry; do
      a="$(med agent "$batch" "$workers" "$scenario" ids_per_s)"
      d="$(med direct "$batch" "$workers" "$scenario" ids_per_s)"
      printf '| %s | %s | %s | %.0f | %.0f | %sx | %s / %s | %s / %s | %s | %s | %s | %s |\n' \
        "$batch" "$workers" "$scenario" "$a" "$d" \
        "$(awk -v a="$a" -v d="$d" 'BEGIN {printf "%.2f", (d > 0 ? a / d : 0)}')" \
        "$(med agent "$batch" "$workers" "$scenario" p50_ms)" "$(med agent "$batch" "$workers" "$scenario" p99_ms)" \
        "$(med direct "$batch" "$workers" "$scenario" p50_ms)" "$(med direct "$batch" "$workers" "$scenario" p99_ms)" \
        "$(med agent "$batch" "$workers" "$scenario" redis_cpu_us_per_id)" \
        "$(med direct "$batch" "$workers" "$scenario" redis_cpu_us_per_id)" \
        "$(med agent "$batch" "$workers" "$scenario" agent_cpu_us_per_id)" \
        "$(med agent "$batch" "$workers" "$scenario" claims_seen)"
    done
  done
done
if [ -f "$work/rate.jsonl" ]; then
  echo
  echo "Latency of $rate_batch-id batches at half the cold maximum ($rate_workers workers, warm JVMs):"
  echo
  echo "| side | offered ids/s | p50 ms | p99 ms |"
  echo "|---|---|---|---|"
  while read -r l; do
    printf '| %s | %s | %s | %s |\n' "$(grep -o '"side":"[a-z]*"' <<<"$l" | cut -d'"' -f4)" "$(field "$l" rate)" \
      "$(field "$l" p50_ms)" "$(field "$l" p99_ms)"
  done <"$work/rate.jsonl"
fi
echo
cat "$work/rows.jsonl" "$work/rate.jsonl" 2>/dev/null || true
exit "$status"
