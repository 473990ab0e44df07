#!/usr/bin/env bash
# What a cold id costs the shards as the fingerprint buckets fill: the benchmarks that start from flushed
# shards measure buckets holding a few dozen claims, a deployment that has run for a whole window holds
# what its --redis-buckets plan gives it (about ids per window / buckets). Each fill level starts from
# flushed shards, claims FILL x buckets ids (not measured), then measures IDS more cold ids in batches of
# BATCH from WORKERS workers: Redis CPU and agent CPU per id (/proc), ids/s, and the shards' used_memory
# per claimed id. Tapjoy's design files by message second, so its buckets do not fill with the window: its
# row is measured once, on flushed shards, at the same batch size.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Starts three redis-server processes (nothing
# persisted; hash-max-listpack-entries 512 as in deploy/kubernetes/redis/redis.conf, so that a level holds
# the agent's default 384 claims: at Redis's default of 128 a bucket planned for 200 would span levels)
# and one agent (defaults, fingerprint layout), stopped by PID however the script ends. REDIS_ARGS replaces
# the servers' flags.
# Environment: FILLS (claims per bucket before measuring, default "0 50 100 200 350"), BUCKETS (the
# agent's --redis-buckets, default 16384, not the agent's 65,536: what is measured is the fill, which fewer
# buckets reach with fewer ids), IDS (300000: few enough that the fill moves by
# IDS / BUCKETS during the measurement), BATCH (1000), WORKERS (4), ROUNDS (3: medians), AGENT_WARMUP
# (1000000 ids a warm-up pass, cold then retry, repeated until the agent's JIT settles: warm_agent in
# bench-lib.sh), WARMUP_PASSES (10 at most), AGENT_ARGS, REDIS_SERVER.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-redis-fill
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

fills="${FILLS:-0 50 100 200 350}"
buckets="${BUCKETS:-16384}"
ids="${IDS:-300000}"
batch="${BATCH:-1000}"
workers="${WORKERS:-4}"
rounds="${ROUNDS:-3}"
agent_warmup="${AGENT_WARMUP:-1000000}"

require_jars
REDIS_ARGS="${REDIS_ARGS---hash-max-listpack-entries 512}"
start_shards 3
shard_pids=("${pids[@]}")
port="$(free_port)"
# shellcheck disable=SC2086
start_agent "$port" --redis "$shards" --redis-buckets "$buckets" ${AGENT_ARGS:-}
agent_pid="${pids[-1]}"
cpu_model="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
cpu_list="$(IFS=,; echo "${shard_pids[*]}")"

used_memory() {
  local p total=0
  for p in "${ports[@]}"; do
    total=$(( total + $(redis-cli -p "$p" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r') ))
  done
  echo "$total"
}

if [ "$agent_warmup" -gt 0 ]; then
  echo "$name: warming the agent up: passes of $agent_warmup ids, cold then retry, until its JIT settles" >&2
  warm_agent "$port" "$agent_pid" "$agent_warmup"
fi
lines=()

for round in $(seq 1 "$rounds"); do
  for fill in $fills; do
    flush_shards
    empty="$(used_memory)"
    if [ "$fill" -gt 0 ]; then
      echo "$name: round $round: filling $buckets buckets with $fill claims each" >&2
      run_load --scenario cold --ids $(( fill * buckets )) --batch 10000 --workers 4 \
        --target "http://127.0.0.1:$port" --run-id "fill-$round-$fill"
    fi
    lines=()
    echo "$name: round $round, fill $fill: measuring $ids cold ids" >&2
    reads="$(bucket_reads "$port")"
    run_load --scenario cold --ids "$ids" --batch "$batch" --workers "$workers" --target "http://127.0.0.1:$port" \
      --cpu-redis "$cpu_list" --cpu-agent "$agent_pid" --run-id "measure-$round-$fill"
    claimed=$(( fill * buckets + ids ))
    per_id="$(awk -v a="$(used_memory)" -v e="$empty" -v n="$claimed" 'BEGIN {printf "%.1f", (a - e) / n}')"
    # What the agent says its calls found: the mean claims of the buckets they read.
    seen="$(claims_per_bucket_read "$port" "$reads")"
    for line in "${lines[@]}"; do
      echo "{\"side\":\"agent\",\"fill\":$fill,\"round\":$round,\"bytes_per_id\":$per_id,\"claims_seen\":$seen,\"run\":$line}" \
        >>"$work/rows.jsonl"
    done
  done
  flush_shards
  lines=()
  echo "$name: round $round: Tapjoy's design" >&2
  run_load --scenario cold --ids "$ids" --batch "$batch" --workers "$workers" --direct "$shards" --cpu-redis "$cpu_list" \
    --run-id "tapjoy-$round"
  for line in "${lines[@]}"; do
    echo "{\"side\":\"direct\",\"fill\":0,\"round\":$round,\"run\":$line}" >>"$work/rows.jsonl"
  done
done

med() { grep -h "\"side\":\"$1\",\"fill\":$2," "$work/rows.jsonl" | while read -r l; do field "$l" "$3"; done | median; }

errors=0
while read -r l; do
  errors=$(( errors + $(field "$l" false_drops) + $(field "$l" missed_duplicates) ))
done <"$work/rows.jsonl"

echo
echo "$(date -u +%F) · $cpu_model, $(nproc) cores · agent: --redis-buckets $buckets ${AGENT_ARGS:-}, warmed up with" \
  "${warm_passes:-0} passes of $agent_warmup ids · redis-server $REDIS_ARGS · $ids cold ids measured, batch $batch, $workers workers, medians of $rounds ·" \
  "ledger errors: $errors"
echo
echo "| claims per bucket before | side | ids/s | Redis CPU µs/id | agent CPU µs/id | Redis bytes/id | claims the agent saw per bucket read |"
echo "|---|---|---|---|---|---|---|"
for fill in $fills; do
  printf '| %s | agent | %.0f | %s | %s | %s | %s |\n' "$fill" "$(med agent "$fill" ids_per_s)" \
    "$(med agent "$fill" redis_cpu_us_per_id)" "$(med agent "$fill" agent_cpu_us_per_id)" \
    "$(med agent "$fill" bytes_per_id)" "$(med agent "$fill" claims_seen)"
done
printf '| any | Tapjoy | %.0f | %s | | | |\n' "$(med direct 0 ids_per_s)" "$(med direct 0 redis_cpu_us_per_id)"
echo
cat "$work/rows.jsonl"
[ "$errors" -eq 0 ] || status=3
exit "$status"
