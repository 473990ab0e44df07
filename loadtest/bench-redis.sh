#!/usr/bin/env bash
# What the Redis tier costs once the shards hold what a deployment holds, against Tapjoy's design on the
# same shards; on a Redis Cluster against the same number of standalone shards; and over a network.
#
#   loadtest/bench-redis.sh [fill]   fill three shards to each of FILLS live claims (not measured), then
#                                    measure IDS new ids at each; then Tapjoy's design on the same shards
#   loadtest/bench-redis.sh rolling  RATE ids a second for three windows of WINDOW, 5 % duplicates: Redis
#                                    memory every 30 s, and the CPU per id with expiry and sweeping included
#                                    (with EVENT_TIME=1, RATE is 33334 and ids carry the second they are sent in)
#   loadtest/bench-redis.sh cluster  three standalone shards and a Redis Cluster of three masters, each behind
#                                    its own agent with the near-cache off, `--scenario all` over IDS ids on
#                                    each, ROUNDS times, alternating
#   loadtest/bench-redis.sh net      the Redis tier over a network: three shards, each on a host of its own,
#                                    behind one delaying proxy; at each round trip of NET_DELAYS, IDS new ids
#                                    then the same ids again (retry) through the agent, through AGENT_OTHER's
#                                    build beside it, and Tapjoy's design (--direct) through the same proxy;
#                                    first the agent and Tapjoy's design on the shards' own addresses (no
#                                    proxy); ROUNDS times, the sides' order alternating
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
# net prints, per path and side: the PING round trip through that path (redis-cli --latency for 2 s before the
# path's runs), cold ids/s and its ratio to the same side's through the proxy without delay, p50 and p99 of the
# cold batches, retry ids/s, the share of retried ids the agent answered without a Redis call (its near-cache's
# hits), the claim calls in flight a shard (the calls' summed time over the cold pass's seconds, a shard's
# mean), ids a call, the connections the agent holds on each shard, and the proxy's CPU per id that crossed it
# (every cold id; retried ids only where Redis was asked). A Markdown table, medians of ROUNDS, then every
# JSON line.
#
# The network (net, or NET_DELAY with fill and rolling): each shard runs in a network namespace of its own
# (ddnb<script PID>h<n>), joined to this machine by a veth pair (the shard at 10.214.<n>.2), and one
# DelayProxy process (loadtest's dev.dedup.loadtest.net) on 127.0.0.1 stands in front of all three, holding
# every chunk back half the round trip each way, as `tc qdisc netem delay` on the shards' side would (this
# kernel has no netem). The agent and the load generator's --direct both connect through it. Needs root and
# `ip netns`; the namespaces (their veth pairs with them) and the proxy are removed however the script ends,
# and a run killed with -9 leaves namespaces the next run removes.
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
# NET_DELAY (unset: the shards on loopback, as ever; a round trip such as 0.3ms or 1ms, or 0 for the proxy's
# path without delay: fill and rolling with the shards behind the delaying proxy), NET_JITTER (0; e.g. 0.2ms: each
# round trip NET_DELAY ± NET_JITTER), PROXY_JAVA_OPTS. For net: NET_DELAYS ("0 0.3ms 1ms"), NET_JITTER (applied
# to every round trip but 0), AGENT_OTHER (a second agent jar, e.g. another build, measured beside this one on
# the same shards and path), IDS (300000), ROUNDS (3), BATCH, WORKERS, AGENT_WARMUP, AGENT_ARGS.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-redis
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

mode="${1:-fill}"
if [ "$mode" = cluster ] || [ "$mode" = net ]; then
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
  local errors l
  errors=$(ledger_errors "$work/rows.jsonl")
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

# metrics PORT: "<near-cache hits> <claim calls> <claim call seconds> <calls gathered>" of the agent on PORT, over
# all shards, from /metrics.
metrics() {
  curl -fsS "http://127.0.0.1:$1/metrics" | awk '
    /^cache_gets_total\{/ && /result="hit"/ {h += $NF}
    /^dedup_redis_script_seconds_count\{/ && /op="claim"/ {c += $NF}
    /^dedup_redis_script_seconds_sum\{/ && /op="claim"/ {s += $NF}
    /^dedup_redis_calls_gathered_total\{/ {g += $NF}
    END {printf "%.0f %.0f %.6f %.0f", h, c, s, g}'
}

# connections: the clients of each shard but this query, space-separated.
connections() {
  local i out=()
  for i in "${!ports[@]}"; do
    out+=("$(( $(redis-cli -h "${hosts[$i]}" -p "${ports[$i]}" client list | wc -l) - 1 ))")
  done
  echo "${out[*]}"
}

# net_side SIDE PATH ROUND TARGET...: flushes the shards, runs IDS new ids then the same ids again (retry) through
# TARGET (an agent's port, or `direct` for Tapjoy's design on PATH's shards), and files one row a scenario with
# the proxy's CPU and, for an agent, its calls over the run.
net_side() {
  local side=$1 path=$2 round=$3 target=$4 before after proxy_before proxy_cpu line
  flush_shards
  lines=()
  proxy_before="$(cpu_seconds "$proxy_pid")"
  echo "$name: round $round, $path: $side" >&2
  if [ "$target" = direct ]; then
    local uris_of="$shards"
    [ "$path" = veth ] && uris_of="$direct_shards"
    run_load --scenario cold,retry --ids "$ids" --batch "$batch" --workers "$workers" --direct "$uris_of" \
      --cpu-redis "$cpu_list" --run-id "net-$side-$path-$round"
    before="0 0 0 0"
    after="0 0 0 0"
  else
    before="$(metrics "$target")"
    run_load --scenario cold,retry --ids "$ids" --batch "$batch" --workers "$workers" \
      --target "http://127.0.0.1:$target" --cpu-redis "$cpu_list" --cpu-agent "${agent_pids[$side]}" \
      --run-id "net-$side-$path-$round"
    after="$(metrics "$target")"
  fi
  proxy_cpu="$(awk -v a="$(cpu_seconds "$proxy_pid")" -v b="$proxy_before" 'BEGIN {printf "%.2f", a - b}')"
  read -r hb cb sb gb <<<"$before"
  read -r ha ca sa ga <<<"$after"
  for line in "${lines[@]}"; do
    echo "{\"side\":\"$side\",\"path\":\"$path\",\"round\":$round,\"rtt_ms\":${rtt[$path]},\"proxy_cpu_s\":$proxy_cpu,\"hits\":$(( ha - hb )),\"calls\":$(( ca - cb )),\"call_s\":$(awk -v a="$sa" -v b="$sb" 'BEGIN {printf "%.4f", a - b}'),\"gathered\":$(( ga - gb )),\"run\":$line}" \
      >>"$work/rows.jsonl"
  done
}

net_mode() {
  local delays="${NET_DELAYS:-0 0.3ms 1ms}" jitter="${NET_JITTER:-0}" round d j path side order p
  local -A agent_ports=() conns=()
  declare -gA agent_pids=() rtt=()
  local other="${AGENT_OTHER:-}"
  [ -z "$other" ] || [ -f "$other" ] || { echo "$name: AGENT_OTHER $other is not a file" >&2; exit 2; }
  start_net_shards 3 0 0
  cpu_list="$(IFS=,; echo "${pids[*]:0:3}")"
  # One agent on the shards' own addresses, one through the proxy, and AGENT_OTHER's build through the proxy.
  local -a sides=(agent)
  [ -n "$other" ] && sides+=(other)
  p="$(free_port)"
  start_agent "$p" --redis "$direct_shards" ${AGENT_ARGS:-}
  agent_ports[agent-veth]=$p
  agent_pids[agent-veth]="${pids[-1]}"
  conns[agent-veth]="$(connections)"
  for side in "${sides[@]}"; do
    local jar="$agent_jar"
    [ "$side" = other ] && { cp "$other" "$work/dedup-agent-other.jar"; agent_jar="$work/dedup-agent-other.jar"; }
    p="$(free_port)"
    local c0
    c0="$(connections)"
    start_agent "$p" --redis "$shards" ${AGENT_ARGS:-}
    agent_jar="$jar"
    agent_ports[$side]=$p
    agent_pids[$side]="${pids[-1]}"
    conns[$side]="$(paste -d' ' <(tr ' ' '\n' <<<"$(connections)") <(tr ' ' '\n' <<<"$c0") | awk '{printf "%s%d", (NR > 1 ? "/" : ""), $1 - $2}')"
  done
  conns[agent-veth]="$(tr ' ' '/' <<<"${conns[agent-veth]}")"
  if [ "$agent_warmup" -gt 0 ]; then
    for side in agent-veth "${sides[@]}"; do
      echo "$name: warming $side up: passes of $agent_warmup ids, cold then retry, until its JIT settles" >&2
      warm_agent "${agent_ports[$side]}" "${agent_pids[$side]}" "$agent_warmup"
    done
  fi
  for round in $(seq 1 "$rounds"); do
    for d in veth $delays; do
      if [ "$d" = veth ]; then
        path=veth
        rtt[veth]="$(ping_ms "${hosts[0]}" "${ports[0]}")"
        order=(agent-veth tapjoy)
      else
        j="$jitter"
        [ "$d" = 0 ] && j=0
        net_round_trip "$d" "$j"
        path="proxy-$d"
        rtt[$path]="$(ping_ms 127.0.0.1 "${uris[0]##*:}")"
        order=("${sides[@]}" tapjoy)
      fi
      # Alternate the order of the sides from round to round, so that a busy moment favours none.
      [ $(( round % 2 )) -eq 0 ] && order=($(printf '%s\n' "${order[@]}" | tac))
      for side in "${order[@]}"; do
        case "$side" in
          tapjoy) net_side tapjoy "$path" "$round" direct ;;
          agent-veth) net_side agent-veth "$path" "$round" "${agent_ports[agent-veth]}" ;;
          *) net_side "$side" "$path" "$round" "${agent_ports[$side]}" ;;
        esac
      done
    done
  done

  # med SIDE PATH SCENARIO FIELD: the median of a field over the rounds.
  med() {
    grep -h "\"side\":\"$1\",\"path\":\"$2\"," "$work/rows.jsonl" | grep "\"scenario\":\"$3\"" \
      | while read -r l; do field "$l" "$4"; done | median
  }
  local errors l
  errors=$(ledger_errors "$work/rows.jsonl")
  echo
  echo "$(machine) · shards on hosts of their own (veth), the agent's and Tapjoy's calls through one delaying" \
    "proxy · $ids new ids, then the same ids again (retry), batch $batch, $workers workers, medians of $rounds" \
    "· jitter $jitter · ledger errors: $errors"
  echo
  echo "| path | side | PING ms | cold ids/s | vs proxy 0 | cold p50 ms | cold p99 ms | retry ids/s | retry without Redis | claim calls in flight a shard | ids a call | connections a shard | proxy CPU µs/id through it |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  for d in veth $delays; do
    path=veth
    order=(agent-veth tapjoy)
    [ "$d" = veth ] || { path="proxy-$d"; order=("${sides[@]}" tapjoy); }
    for side in "${order[@]}"; do
      local base cold_ids retry_ids hits calls call_s secs through
      base="$(med "${side/agent-veth/agent}" proxy-0 cold ids_per_s)"
      cold_ids="$(med "$side" "$path" cold ids)"
      retry_ids="$(med "$side" "$path" retry ids)"
      hits="$(med "$side" "$path" cold hits)"
      calls="$(med "$side" "$path" cold calls)"
      call_s="$(med "$side" "$path" cold call_s)"
      secs="$(med "$side" "$path" cold seconds)"
      # Ids that crossed the proxy: every cold id, and the retried ones the near-cache did not answer.
      through="$(awk -v c="$cold_ids" -v r="$retry_ids" -v h="$hits" -v s="$side" \
        'BEGIN {print (s == "tapjoy") ? c + r : c + r - h}')"
      printf '| %s | %s | %s | %.0f | %s | %s | %s | %.0f | %s | %s | %s | %s | %s |\n' "$path" "$side" \
        "$(med "$side" "$path" cold rtt_ms)" "$(med "$side" "$path" cold ids_per_s)" \
        "$(awk -v a="$(med "$side" "$path" cold ids_per_s)" -v b="$base" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "-"}')" \
        "$(med "$side" "$path" cold p50_ms)" "$(med "$side" "$path" cold p99_ms)" \
        "$(med "$side" "$path" retry ids_per_s)" \
        "$( [ "$side" = tapjoy ] && echo 0 % || awk -v h="$hits" -v r="$retry_ids" 'BEGIN {printf "%.1f %%", 100 * h / r}')" \
        "$( [ "$side" = tapjoy ] && echo - || awk -v t="$call_s" -v s="$secs" 'BEGIN {printf "%.2f", t / s / 3}')" \
        "$( [ "$side" = tapjoy ] && echo - || awk -v c="$calls" -v n="$cold_ids" 'BEGIN {printf "%.0f", (c > 0 ? n / c : 0)}')" \
        "$( [ "$side" = tapjoy ] && echo - || echo "${conns[$side]}")" \
        "$( [ "$path" = veth ] && echo - || awk -v c="$(med "$side" "$path" cold proxy_cpu_s)" -v n="$through" 'BEGIN {printf "%.2f", 1e6 * c / n}')"
    done
  done
  echo
  cat "$work/rows.jsonl"
  [ "$errors" -eq 0 ] || status=3
}

require_jars
case "$mode" in
  fill) fill_mode ;;
  rolling) rolling_mode ;;
  cluster)
    [ -z "${NET_DELAY:-}" ] || { echo "$name: cluster mode does not take NET_DELAY (its nodes redirect to their own addresses)" >&2; exit 2; }
    cluster_mode ;;
  net) net_mode ;;
  *) echo "usage: $0 [fill|rolling|cluster|net]" >&2; exit 2 ;;
esac
exit "$status"
