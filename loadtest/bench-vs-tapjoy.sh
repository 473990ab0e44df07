#!/usr/bin/env bash
# The benchmark of issue 4: the agent against Tapjoy's design on the same three local Redis shards, in one
# run, with ratios.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Starts three redis-server processes (nothing
# persisted, noeviction) and agent/target/dedup-agent.jar with --redis on them, then for each side runs the
# load generator over IDS ids: cold, retry, duplicate (the same ids again), and mixed (fresh ids with 5 %
# producer duplicates and 2 % replayed batches). The agent side goes through HTTP on loopback; the direct
# side (--direct) sends Tapjoy's Lua script straight to the shards. The shards are flushed between the two
# sides. Prints the table side by side (ratios first) and every JSON line. Every process is stopped by its
# PID however the script ends. Exit status: the load generator's worst (3 when any verdict was wrong).
#
# Environment: IDS (default 2000000), BATCH (default 10000), WORKERS (default 4), WARMUP (default 400000,
# both sides), NEAR_CACHE (agent entries, default 4194304), ROUNDS (default 1: with more, the sides
# alternate and the table shows medians), REPORT_DIR (write an HTML report of each side and round there),
# EVENT_TIME (default 1: the agent files the run's namespace by event time, --namespace-event-rate
# loadtest=33334, and the generator sends every message's event time, as Tapjoy's side has it; 0: no event
# times, the agent's fingerprint layout), AGENT_ARGS (more agent flags), AGENT_JAVA_OPTS, LOADTEST_JAVA_OPTS. Everything shares this machine's cores: compare ratios, not absolute figures.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-vs-tapjoy
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

ids="${IDS:-2000000}"
batch="${BATCH:-10000}"
workers="${WORKERS:-4}"
warmup="${WARMUP:-400000}"
near_cache="${NEAR_CACHE:-4194304}"
rounds="${ROUNDS:-1}"
event_time="${EVENT_TIME:-1}"
layout_args=()
event_args=()
if [ "$event_time" = 1 ]; then
  layout_args=(--namespace-event-rate loadtest=33334)
  event_args=(--event-time)
fi
require_jars
start_shards 3
port="$(free_port)"
# shellcheck disable=SC2086
start_agent "$port" --redis "$shards" --near-cache-size "$near_cache" "${layout_args[@]}" ${AGENT_ARGS:-}
echo "$name: agent on port $port, shards $shards, $(nproc) cores, $ids ids, batch $batch, $workers workers," \
  "event time $event_time" >&2


common=(--scenario all --ids "$ids" --batch "$batch" --workers "$workers" --warmup "$warmup")
for round in $(seq 1 "$rounds"); do
  echo "$name: round $round: agent" >&2
  flush_shards
  report=()
  [ -n "${REPORT_DIR:-}" ] && mkdir -p "$REPORT_DIR" && report=(--report "$REPORT_DIR/agent-round$round.html")
  run_load "${common[@]}" --target "http://127.0.0.1:$port" "${event_args[@]}" "${report[@]}"
  for line in "${lines[@]}"; do [[ "$line" == *'"format":"binary'* ]] && echo "agent $line"; done >>"$work/agent.jsonl"
  lines=()
  echo "$name: round $round: direct (Tapjoy)" >&2
  flush_shards
  [ -n "${REPORT_DIR:-}" ] && report=(--report "$REPORT_DIR/direct-round$round.html")
  run_load "${common[@]}" --direct "$shards" "${report[@]}"
  for line in "${lines[@]}"; do echo "direct $line"; done >>"$work/direct.jsonl"
  lines=()
done

# field LINE NAME: a number of a JSON line.


echo
printf '%-10s %12s %13s %13s %10s %11s %8s %14s\n' scenario "agent/direct" "agent ids/s" "direct ids/s" \
  "agent p99" "direct p99" "bar" "ledger errors"
for scenario in cold retry duplicate mixed; do
  a="$(grep -h "\"scenario\":\"$scenario\"" "$work/agent.jsonl" || true)"
  d="$(grep -h "\"scenario\":\"$scenario\"" "$work/direct.jsonl" || true)"
  [ -n "$a" ] && [ -n "$d" ] || continue
  a_rate="$(while read -r l; do field "$l" ids_per_s; done <<<"$a" | median)"
  d_rate="$(while read -r l; do field "$l" ids_per_s; done <<<"$d" | median)"
  a_p99="$(while read -r l; do field "$l" p99_ms; done <<<"$a" | median)"
  d_p99="$(while read -r l; do field "$l" p99_ms; done <<<"$d" | median)"
  errors=0
  while read -r l; do
    errors=$(( errors + $(field "$l" false_drops) + $(field "$l" missed_duplicates) ))
  done <<<"$(printf '%s\n%s\n' "$a" "$d")"
  case "$scenario" in cold) bar=">= 0.8x" ;; retry) bar=">= 2.5x" ;; *) bar="" ;; esac
  printf '%-10s %12s %13s %13s %10s %11s %8s %14s\n' "$scenario" \
    "$(awk -v a="$a_rate" -v d="$d_rate" 'BEGIN {printf "%.2fx", (d > 0 ? a / d : 0)}')" \
    "$(LC_ALL=C awk -v v="$a_rate" 'BEGIN {printf "%.0f", v}')" "$(LC_ALL=C awk -v v="$d_rate" 'BEGIN {printf "%.0f", v}')" \
    "$(awk -v v="$a_p99" 'BEGIN {printf "%.0f ms", v}')" "$(awk -v v="$d_p99" 'BEGIN {printf "%.0f ms", v}')" "$bar" "$errors"
done
echo
cat "$work/agent.jsonl" "$work/direct.jsonl"
exit "$status"
