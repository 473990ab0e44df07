#!/usr/bin/env bash
# What the Redis tier costs once it holds what a deployment holds, not on flushed shards.
#
#   loadtest/bench-steady-state.sh fill      fill the shards to each of FILLS live ids (not measured), then
#                                            measure IDS new ids; once per listpack setting of LISTPACK
#   loadtest/bench-steady-state.sh rolling   a constant RATE for 3 windows of WINDOW, 5 % duplicates: memory over
#                                            time, and the shards' CPU per id with expiry and the sweep included
#
# fill, per row: the shards' CPU and the agent's CPU per new id (/proc), ids/s, p99, the shards' used_memory per
# live id, and what the agent says of its tables (buckets, claims per bucket, calls sent back as stale); then
# Tapjoy's design (its Lua script straight to the same shards, --direct) at the same batch size and at its
# published operating point: batches of 1,000,000 ids (30 s of them at 2 M a minute) grouped by bucket, about
# 100 per call.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Starts three redis-server processes (nothing
# persisted, noeviction) and one agent with default settings, stopped by PID however the script ends.
# Environment: FILLS (default "0 10M 30M 100M"), IDS (2M), BATCH (1000), WORKERS (4), LISTPACK ("512 128":
# the shards' hash-max-listpack-entries, which the fingerprint layout does not use; the event-time layout and
# Tapjoy's hashes do), ROUNDS (1), AGENT_WARMUP (1000000 ids a warm-up pass until the agent's JIT settles),
# RATE (30000 ids/s) and WINDOW (10m) for rolling, AGENT_ARGS, REDIS_SERVER.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-steady-state
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

mode="${1:-fill}"
ids="${IDS:-2000000}"
batch="${BATCH:-1000}"
workers="${WORKERS:-4}"
rounds="${ROUNDS:-1}"
agent_warmup="${AGENT_WARMUP:-1000000}"
cpu_model="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"

# count N: N with K or M suffix as a number.
count() {
  case "$1" in
    *M) echo $(( ${1%M} * 1000000 )) ;;
    *K) echo $(( ${1%K} * 1000 )) ;;
    *) echo "$1" ;;
  esac
}

used_memory() {
  local p total=0
  for p in "${ports[@]}"; do
    total=$(( total + $(redis-cli -p "$p" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r') ))
  done
  echo "$total"
}

# tables PORT: "<buckets> <claims> <stale calls>" of the agent's fingerprint tables over all shards.
tables() {
  local stats
  stats="$(curl -fsS "http://127.0.0.1:$1/v1/stats")"
  python3 -c '
import json, sys
s = json.load(sys.stdin)["store"]
b = c = 0
for shard in s.get("shards", []):
    for t in shard.get("tables", {}).values():
        b += t["buckets"]; c += t["claims"]
print(b, c)' <<<"$stats" | tr -d '\n'
  echo " $(agent_metric "$1" dedup_redis_calls_stale_total)"
}

start_tier() {
  REDIS_ARGS="$1"
  start_shards 3
  shard_pids=("${pids[@]}")
  cpu_list="$(IFS=,; echo "${shard_pids[*]}")"
  port="$(free_port)"
  # shellcheck disable=SC2086
  start_agent "$port" --redis "$shards" ${AGENT_ARGS:-}
  agent_pid="${pids[-1]}"
}

stop_tier() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  pids=()
}

fill_mode() {
  local fills="${FILLS:-0 10M 30M 100M}" listpack round f live target per_id t
  for listpack in ${LISTPACK:-512 128}; do
    for round in $(seq 1 "$rounds"); do
      start_tier "--hash-max-listpack-entries $listpack"
      if [ "$agent_warmup" -gt 0 ]; then
        echo "$name: warming the agent up: passes of $agent_warmup ids, cold then retry, until its JIT settles" >&2
        warm_agent "$port" "$agent_pid" "$agent_warmup"
      fi
      flush_shards
      empty="$(used_memory)"
      live=0
      for f in $fills; do
        target="$(count "$f")"
        if [ "$target" -gt "$live" ]; then
          echo "$name: listpack $listpack, round $round: filling to $f live ids" >&2
          lines=()
          run_load --scenario cold --ids $(( target - live )) --batch 10000 --workers 4 \
            --target "http://127.0.0.1:$port" --run-id "fill-$listpack-$round-$target"
          live="$target"
        fi
        echo "$name: listpack $listpack, round $round, $f live: measuring $ids new ids" >&2
        lines=()
        stale_before="$(agent_metric "$port" dedup_redis_calls_stale_total)"
        run_load --scenario cold --ids "$ids" --batch "$batch" --workers "$workers" \
          --target "http://127.0.0.1:$port" --cpu-redis "$cpu_list" --cpu-agent "$agent_pid" \
          --run-id "measure-$listpack-$round-$target"
        live=$(( live + ids ))
        per_id="$(awk -v a="$(used_memory)" -v e="$empty" -v n="$live" 'BEGIN {printf "%.1f", (a - e) / n}')"
        read -r buckets claims stale <<<"$(tables "$port")"
        for line in "${lines[@]}"; do
          echo "{\"side\":\"agent\",\"listpack\":$listpack,\"fill\":\"$f\",\"round\":$round,\"bytes_per_id\":$per_id,\"buckets\":$buckets,\"claims\":$claims,\"stale_calls\":$(( stale - stale_before )),\"run\":$line}" \
            >>"$work/rows.jsonl"
        done
      done
      # Tapjoy's design on the same shards (the agent's claims still in them): at the agent's batch size, then
      # at its operating point. Its buckets hold a second of ids each, whatever the window holds.
      for point in same operating; do
        lines=()
        echo "$name: listpack $listpack, round $round: Tapjoy's design, $point" >&2
        if [ "$point" = same ]; then
          run_load --scenario cold --ids "$ids" --batch "$batch" --workers "$workers" --direct "$shards" \
            --cpu-redis "$cpu_list" --run-id "tapjoy-$listpack-$round"
        else
          run_load --scenario cold --ids 2000000 --batch 1000000 --workers 1 --direct "$shards" \
            --cpu-redis "$cpu_list" --run-id "tapjoy-op-$listpack-$round"
        fi
        for line in "${lines[@]}"; do
          echo "{\"side\":\"tapjoy-$point\",\"listpack\":$listpack,\"fill\":\"-\",\"round\":$round,\"run\":$line}" \
            >>"$work/rows.jsonl"
        done
      done
      stop_tier
    done
  done

  med() {
    grep -h "\"side\":\"$1\",\"listpack\":$2,\"fill\":\"$3\"," "$work/rows.jsonl" | while read -r l; do field "$l" "$4"; done \
      | median
  }
  p99() {
    grep -h "\"side\":\"$1\",\"listpack\":$2,\"fill\":\"$3\"," "$work/rows.jsonl" \
      | grep -o '"p99_ms":[-0-9.]*' | cut -d: -f2 | median
  }
  errors=0
  while read -r l; do
    errors=$(( errors + $(field "$l" false_drops) + $(field "$l" missed_duplicates) ))
  done <"$work/rows.jsonl"
  echo
  echo "$(date -u +%F) · $cpu_model, $(nproc) cores · agent defaults ${AGENT_ARGS:-}, warmed up ·" \
    "3 × $("$redis_server" --version | awk '{print $1, $3}') · $ids new ids measured a row, batch $batch," \
    "$workers workers, medians of $rounds · ledger errors: $errors"
  for listpack in ${LISTPACK:-512 128}; do
    echo
    echo "hash-max-listpack-entries $listpack"
    echo
    echo "| live ids before | side | ids/s | p99 ms | Redis CPU µs/new id | agent CPU µs/id | Redis bytes/id | buckets | claims/bucket | stale calls |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    for f in ${FILLS:-0 10M 30M 100M}; do
      printf '| %s | agent | %.0f | %s | %s | %s | %s | %.0f | %.1f | %s |\n' "$f" \
        "$(med agent "$listpack" "$f" ids_per_s)" "$(p99 agent "$listpack" "$f")" \
        "$(med agent "$listpack" "$f" redis_cpu_us_per_id)" "$(med agent "$listpack" "$f" agent_cpu_us_per_id)" \
        "$(med agent "$listpack" "$f" bytes_per_id)" "$(med agent "$listpack" "$f" buckets)" \
        "$(awk -v c="$(med agent "$listpack" "$f" claims)" -v b="$(med agent "$listpack" "$f" buckets)" 'BEGIN {print (b > 0 ? c / b : 0)}')" \
        "$(med agent "$listpack" "$f" stale_calls)"
    done
    printf '| any | Tapjoy, batch %s | %.0f | %s | %s | | | | | |\n' "$batch" \
      "$(med tapjoy-same "$listpack" - ids_per_s)" "$(p99 tapjoy-same "$listpack" -)" \
      "$(med tapjoy-same "$listpack" - redis_cpu_us_per_id)"
    printf '| any | Tapjoy, a minute grouped by bucket | %.0f | %s | %s | | | | | |\n' \
      "$(med tapjoy-operating "$listpack" - ids_per_s)" "$(p99 tapjoy-operating "$listpack" -)" \
      "$(med tapjoy-operating "$listpack" - redis_cpu_us_per_id)"
  done
  echo
  cat "$work/rows.jsonl"
  [ "$errors" -eq 0 ] || status=3
}

rolling_mode() {
  local rate="${RATE:-30000}" window="${WINDOW:-10m}" seconds total
  case "$window" in
    *m) seconds=$(( ${window%m} * 60 )) ;;
    *s) seconds="${window%s}" ;;
    *h) seconds=$(( ${window%h} * 3600 )) ;;
    *) echo "$name: WINDOW is like 10m, 600s or 1h" >&2; exit 2 ;;
  esac
  total=$(( rate * seconds * 3 ))
  AGENT_ARGS="${AGENT_ARGS:-} --window $window"
  start_tier "${REDIS_ARGS:-}"
  if [ "$agent_warmup" -gt 0 ]; then
    warm_agent "$port" "$agent_pid" "$agent_warmup"
  fi
  flush_shards
  local empty cpu_before t0
  empty="$(used_memory)"
  t0=$(date +%s)
  (
    while sleep 30; do
      echo "$(( $(date +%s) - t0 )) $(( $(used_memory) - empty )) $(tables "$port")"
    done
  ) >"$work/memory.txt" &
  local sampler=$!
  lines=()
  echo "$name: $total ids at $rate a second for 3 windows of $window, 5 % duplicates" >&2
  run_load --scenario mixed --dup-rate 0.05 --retry-rate 0 --ids "$total" --rate "$rate" --batch "$batch" \
    --workers "$workers" --target "http://127.0.0.1:$port" --cpu-redis "$cpu_list" --cpu-agent "$agent_pid" \
    --run-id "rolling" --timeout-ms 10000
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  echo
  echo "$(date -u +%F) · $cpu_model, $(nproc) cores · window $window, $rate ids/s offered for 3 windows, 5 %" \
    "duplicates, batch $batch, $workers workers"
  echo
  echo "| seconds | Redis used_memory over empty, MB | table buckets | table records | stale calls |"
  echo "|---|---|---|---|---|"
  awk '{printf "| %s | %.1f | %s | %s | %s |\n", $1, $2 / 1048576, $3, $4, $5}' "$work/memory.txt"
  echo
  printf '%s\n' "${lines[@]}"
}

require_jars
case "$mode" in
  fill) fill_mode ;;
  rolling) rolling_mode ;;
  *) echo "usage: $0 fill|rolling" >&2; exit 2 ;;
esac
exit "$status"
