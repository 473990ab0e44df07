#!/usr/bin/env bash
# What the Redis tier costs once the shards hold what a deployment holds, against Tapjoy's design on the
# same shards; and on a Redis Cluster against the same number of standalone shards.
#
#   loadtest/bench-redis.sh [fill]   fill three shards to each of FILLS live claims (not measured), then
#                                    measure IDS new ids at each; then Tapjoy's design on the same shards
#   loadtest/bench-redis.sh rolling  RATE ids a second for three windows of WINDOW, 5 % duplicates: Redis
#                                    memory every 30 s, and the CPU per id with expiry and sweeping included
#                                    (with EVENT_TIME=1, RATE is 33334 and ids carry the second they are sent in)
#   loadtest/bench-redis.sh cluster  three standalone shards and a Redis Cluster of three masters, each behind
#                                    its own agent with the near-cache off, `--scenario all` over IDS ids on
#                                    each, ROUNDS times, alternating
#
# fill prints, per fill: ids/s and p99 of IDS new ids, the shards' CPU and the agent's CPU per new id (from
# /proc), ids/s of the same ids sent again by the same owners (retry: the near-cache's work), the shards'
# used_memory per live claim, and the agent's fingerprint tables (buckets, claims per bucket, calls sent back
# as stale); then Tapjoy's Lua script sent straight to the same shards (--direct) at the agent's batch size
# (cold, then retry) and at its published operating point (a minute of ids, 2,000,000, in batches of 1,000,000
# grouped by bucket: about 100 ids per call), with the memory its buckets took. A Markdown table, then every
# JSON line.
#
# cluster runs three redis-server shards and a cluster of three masters (no replicas, so that both setups run
# the same servers on this machine's cores), each behind its own agent with the near-cache off, so that every id
# of every scenario is decided by a script call. The generator runs `--scenario all` (cold, retry, duplicate over
# IDS ids) against each setup in turn, ROUNDS times, alternating, so that a busy moment of the shared machine
# does not favour one; compare the medians. It prints every JSON line, each followed by its round and setup.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Starts three redis-server processes (no
# persistence, noeviction, otherwise their defaults) and one agent with its default settings (plus
# AGENT_ARGS), warmed up until its JIT compilers settle, and stops them by PID however the script ends.
# Exit status: the load generator's worst (3 when any verdict was wrong).
#
# Environment: FILLS ("0 10M 30M 100M"), IDS (1M: what the default near-cache holds), BATCH (1000), WORKERS (4), ROUNDS (1), EVENT_TIME (0; 1:
# the namespace files claims by event time, --namespace-event-rate loadtest=33334, and every id carries its
# second, 33,334 ids a second of event time), AGENT_WARMUP (1000000 ids a warm-up pass; 0: none),
# WARMUP_PASSES (10 at most), RATE (30000; 33334 with EVENT_TIME=1) and WINDOW (10m) for rolling, AGENT_ARGS, REDIS_ARGS, REDIS_SERVER
# (valkey-server for Valkey), AGENT_JAVA_OPTS, LOADTEST_JAVA_OPTS. For cluster: IDS (300000), ROUNDS (3), BATCH,
# WORKERS, and CLUSTER_GROUPS (the --redis-cluster-groups to compare, "32"; e.g. "16 32 64"); it needs redis-cli.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-redis
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

mode="${1:-fill}"
if [ "$mode" = cluster ]; then
  ids="$(count "${IDS:-300000}")"
  rounds="${ROUNDS:-3}"
else
  ids="$(count "${IDS:-1M}")"
  rounds="${ROUNDS:-1}"
fi
batch="${BATCH:-1000}"
workers="${WORKERS:-4}"
agent_warmup="$(count "${AGENT_WARMUP:-1000000}")"
event_rate=33334
layout_args=()
[ "${EVENT_TIME:-0}" = 1 ] && layout_args=(--namespace-event-rate "loadtest=$event_rate")
# Event time: the first id's second, four hours back, so that every id of a run is inside the window.
event_epoch=$(( $(date +%s) / 3600 * 3600 - 4 * 3600 ))

# event_args FIRST: the generator's event-time flags for a run whose first id is the FIRST-th claimed, so that
# runs follow each other in event time as a stream's minutes do (none without EVENT_TIME).
event_args() {
  [ "${EVENT_TIME:-0}" = 1 ] && echo "--event-time --event-epoch $(( event_epoch + $1 / event_rate ))"
  return 0
}

# tables PORT: "<buckets> <claims> <stale calls>" of the agent's fingerprint tables over all shards.
tables() {
  curl -fsS "http://127.0.0.1:$1/v1/stats" | python3 -c '
import json, sys
s = json.load(sys.stdin)["store"]
b = c = 0
for shard in s.get("shards", []):
    for t in shard.get("tables", {}).values():
        b += t["buckets"]; c += t["claims"]
print(b, c, end="")'
  echo " $(agent_metric "$1" dedup_redis_calls_stale_total)"
}

start_tier() {
  start_shards 3
  cpu_list="$(IFS=,; echo "${pids[*]}")"
  port="$(free_port)"
  # shellcheck disable=SC2086
  start_agent "$port" --redis "$shards" "${layout_args[@]}" ${AGENT_ARGS:-}
  agent_pid="${pids[-1]}"
  if [ "$agent_warmup" -gt 0 ]; then
    echo "$name: warming the agent up: passes of $agent_warmup ids, cold then retry, until its JIT settles" >&2
    # shellcheck disable=SC2046
    warm_agent "$port" "$agent_pid" "$agent_warmup" $(event_args 0)
  fi
  flush_shards
}

machine() {
  echo "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores ·" \
    "3 × $("$redis_server" --version | awk '{print $1, $3}') · agent: defaults${layout_args[*]:+ ${layout_args[*]}}${AGENT_ARGS:+ $AGENT_ARGS}"
}

fill_mode() {
  local fills="${FILLS:-0 10M 30M 100M}" round f live target chunk per_id buckets claims stale stale_before empty
  for round in $(seq 1 "$rounds"); do
    start_tier
    empty="$(used_memory)"
    live=0
    for f in $fills; do
      target="$(count "$f")"
      # In runs of at most 10 M ids: the load generator encodes a run's bodies before it starts.
      while [ "$target" -gt "$live" ]; do
        chunk=$(( target - live < 10000000 ? target - live : 10000000 ))
        echo "$name: round $round: filling from $live to $f live claims" >&2
        lines=()
        # shellcheck disable=SC2046
        run_load --scenario cold --ids "$chunk" --batch 10000 --workers 4 --target "http://127.0.0.1:$port" \
          --run-id "fill-$round-$live" $(event_args "$live")
        live=$(( live + chunk ))
      done
      echo "$name: round $round, $f live claims: measuring $ids new ids" >&2
      lines=()
      stale_before="$(agent_metric "$port" dedup_redis_calls_stale_total)"
      # shellcheck disable=SC2046
      run_load --scenario cold,retry --ids "$ids" --batch "$batch" --workers "$workers" \
        --target "http://127.0.0.1:$port" --cpu-redis "$cpu_list" --cpu-agent "$agent_pid" \
        --run-id "measure-$round-$target" $(event_args "$live")
      live=$(( live + ids ))
      per_id="$(awk -v a="$(used_memory)" -v e="$empty" -v n="$live" 'BEGIN {printf "%.1f", (a - e) / n}')"
      read -r buckets claims stale <<<"$(tables "$port")"
      for line in "${lines[@]}"; do
        echo "{\"side\":\"agent\",\"fill\":\"$f\",\"round\":$round,\"bytes_per_id\":$per_id,\"buckets\":$buckets,\"claims\":$claims,\"stale_calls\":$(( stale - stale_before )),\"run\":$line}" \
          >>"$work/rows.jsonl"
      done
    done
    # Tapjoy's design on the same shards, the agent's claims still in them. Its buckets hold a second of ids
    # each, whatever the window holds, so the fill does not change what a call costs it.
    for point in same operating; do
      lines=()
      echo "$name: round $round: Tapjoy's design, $point" >&2
      local before n
      before="$(used_memory)"
      if [ "$point" = same ]; then
        n="$ids"
        run_load --scenario cold,retry --ids "$n" --batch "$batch" --workers "$workers" --direct "$shards" \
          --cpu-redis "$cpu_list" --run-id "tapjoy-$round"
      else
        n=2000000
        run_load --scenario cold --ids "$n" --batch 1000000 --workers 1 --direct "$shards" \
          --cpu-redis "$cpu_list" --run-id "tapjoy-op-$round"
      fi
      per_id="$(awk -v a="$(used_memory)" -v e="$before" -v n="$n" 'BEGIN {printf "%.1f", (a - e) / n}')"
      for line in "${lines[@]}"; do
        echo "{\"side\":\"tapjoy-$point\",\"fill\":\"-\",\"round\":$round,\"bytes_per_id\":$per_id,\"run\":$line}" >>"$work/rows.jsonl"
      done
    done
    stop_processes
  done

  # med SIDE FILL SCENARIO FIELD: the median of a field over the rounds.
  med() {
    grep -h "\"side\":\"$1\",\"fill\":\"$2\"," "$work/rows.jsonl" | grep "\"scenario\":\"$3\"" \
      | while read -r l; do field "$l" "$4"; done | median
  }
  local errors=0 l
  while read -r l; do
    errors=$(( errors + $(field "$l" false_drops) + $(field "$l" missed_duplicates) ))
  done <"$work/rows.jsonl"
  echo
  echo "$(machine) · $ids new ids measured a row, then the same ids again (retry), batch $batch, $workers workers," \
    "medians of $rounds · ledger errors: $errors"
  echo
  echo "| live claims | side | cold ids/s | cold p99 ms | Redis CPU µs/new id | agent CPU µs/new id | retry ids/s | Redis bytes/claim | buckets | claims/bucket | stale calls |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for f in $fills; do
    printf '| %s | agent | %.0f | %s | %s | %s | %.0f | %s | %.0f | %.1f | %s |\n' "$f" \
      "$(med agent "$f" cold ids_per_s)" "$(med agent "$f" cold p99_ms)" \
      "$(med agent "$f" cold redis_cpu_us_per_id)" "$(med agent "$f" cold agent_cpu_us_per_id)" \
      "$(med agent "$f" retry ids_per_s)" "$(med agent "$f" cold bytes_per_id)" "$(med agent "$f" cold buckets)" \
      "$(awk -v c="$(med agent "$f" cold claims)" -v b="$(med agent "$f" cold buckets)" 'BEGIN {print (b > 0 ? c / b : 0)}')" \
      "$(med agent "$f" cold stale_calls)"
  done
  printf '| any | Tapjoy, batch %s | %.0f | %s | %s | | %.0f | %s | | | |\n' "$batch" \
    "$(med tapjoy-same - cold ids_per_s)" "$(med tapjoy-same - cold p99_ms)" \
    "$(med tapjoy-same - cold redis_cpu_us_per_id)" "$(med tapjoy-same - retry ids_per_s)" \
    "$(med tapjoy-same - cold bytes_per_id)"
  printf '| any | Tapjoy, a minute grouped by bucket | %.0f | %s | %s | | | %s | | | |\n' \
    "$(med tapjoy-operating - cold ids_per_s)" "$(med tapjoy-operating - cold p99_ms)" \
    "$(med tapjoy-operating - cold redis_cpu_us_per_id)" "$(med tapjoy-operating - cold bytes_per_id)"
  echo
  cat "$work/rows.jsonl"
  [ "$errors" -eq 0 ] || status=3
}

rolling_mode() {
  local rate="${RATE:-30000}" window="${WINDOW:-10m}" seconds total empty t0 sampler
  case "$window" in
    *m) seconds=$(( ${window%m} * 60 )) ;;
    *s) seconds="${window%s}" ;;
    *h) seconds=$(( ${window%h} * 3600 )) ;;
    *) echo "$name: WINDOW is like 10m, 600s or 1h" >&2; exit 2 ;;
  esac
  if [ "${EVENT_TIME:-0}" = 1 ]; then
    # Event time then runs with the wall clock: ids carry the second they are sent in.
    [ "$rate" = "${RATE:-$event_rate}" ] && [ -z "${RATE:-}" ] && rate=$event_rate
    [ "$rate" = "$event_rate" ] || { echo "$name: with EVENT_TIME=1, RATE is $event_rate (ids a second of event time)" >&2; exit 2; }
    event_epoch=$(date +%s)
  fi
  total=$(( rate * seconds * 3 ))
  AGENT_ARGS="${AGENT_ARGS:-} --window $window"
  start_tier
  empty="$(used_memory)"
  t0=$(date +%s)
  (
    while sleep 30; do
      echo "$(( $(date +%s) - t0 )) $(( $(used_memory) - empty )) $(tables "$port")"
    done
  ) >"$work/memory.txt" &
  sampler=$!
  lines=()
  echo "$name: $total ids at $rate a second for three windows of $window, 5 % duplicates" >&2
  # shellcheck disable=SC2046
  run_load --scenario mixed --dup-rate 0.05 --retry-rate 0 --ids "$total" --rate "$rate" --batch "$batch" \
    --workers "$workers" --target "http://127.0.0.1:$port" --cpu-redis "$cpu_list" --cpu-agent "$agent_pid" \
    --run-id rolling --timeout-ms 10000 $(event_args 0)
  kill "$sampler" 2>/dev/null || true
  wait "$sampler" 2>/dev/null || true
  echo
  echo "$(machine) · window $window, $rate ids/s offered for three windows, 5 % duplicates, batch $batch," \
    "$workers workers"
  echo
  echo "| seconds | Redis used_memory over empty, MiB | table buckets | table claims | stale calls |"
  echo "|---|---|---|---|---|"
  awk '{printf "| %s | %.1f | %s | %s | %s |\n", $1, $2 / 1048576, $3, $4, $5}' "$work/memory.txt"
  echo
  printf '%s\n' "${lines[@]}"
}

cluster_mode() {
  local groups="${CLUSTER_GROUPS:-32}" standalone_port cluster_uri p g round
  local nodes=() common=()
  local -A cluster_ports=()
  command -v redis-cli >/dev/null || { echo "$name: redis-cli is not installed" >&2; exit 2; }
  start_shards 3
  standalone_port="$(free_port)"
  start_agent "$standalone_port" --redis "$shards" --near-cache-size 0

  for _ in 1 2 3; do
    p="$(free_port)"
    start_redis "$p" --cluster-enabled yes --cluster-config-file "nodes-$p.conf"
    nodes+=("127.0.0.1:$p")
  done
  redis-cli --cluster create "${nodes[@]}" --cluster-yes >"$work/cluster-create.log" 2>&1
  for _ in $(seq 1 100); do
    redis-cli -p "${nodes[0]#*:}" cluster info | grep -q cluster_state:ok && break
    sleep 0.1
  done
  cluster_uri="redis-cluster://$(IFS=,; echo "${nodes[*]}")"
  for g in $groups; do
    cluster_ports[$g]="$(free_port)"
    start_agent "${cluster_ports[$g]}" --redis "$cluster_uri" --redis-cluster-groups "$g" --redis-prefix "g$g" \
      --near-cache-size 0
  done
  echo "$name: standalone agent on $standalone_port (${uris[*]}), cluster agents on ${cluster_ports[*]}" \
    "($cluster_uri), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" >&2

  common=(--scenario all --ids "$ids" --workers "$workers" --batch "$batch" --binary)
  for round in $(seq 1 "$rounds"); do
    echo "$name: round $round: standalone" >&2
    run_load --target "http://127.0.0.1:$standalone_port" "${common[@]}"
    lines+=("round=$round setup=standalone-3")
    for g in $groups; do
      echo "$name: round $round: cluster, $g groups" >&2
      run_load --target "http://127.0.0.1:${cluster_ports[$g]}" "${common[@]}"
      lines+=("round=$round setup=cluster-3-groups-$g")
    done
  done
  printf '%s\n' "${lines[@]}"
}

require_jars
case "$mode" in
  fill) fill_mode ;;
  rolling) rolling_mode ;;
  cluster) cluster_mode ;;
  *) echo "usage: $0 [fill|rolling|cluster]" >&2; exit 2 ;;
esac
exit "$status"
