#!/usr/bin/env bash
# Redis memory per claimed id: for each id count, a fresh redis-server and agent, that many ids claimed
# through the agent (cold scenario, binary batches of 10,000), then the growth of Redis's used_memory
# divided by the ids, the number of keys, how many are extra bucket levels, and the encodings of a
# sample of keys (all must be listpack).
#
# Builds nothing: run `mvn -B -DskipTests package` first. Environment: SIZES (default
# "400000 4000000 10000000"), BUCKETS (default: the agent's default), EVENT_TIME (1: the namespace is
# filed by event time at 33,334 ids a second and the generator sends event times), AGENT_ARGS (more agent
# flags), REDIS_SERVER (default redis-server; valkey-server for Valkey). The JSON line of each size also
# carries the cold claims' ids/s and the server's version. Every process is stopped by its PID however the
# script ends.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-redis-memory
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM
require_jars

sizes="${SIZES:-400000 4000000 10000000}"
extra=()
[ -n "${BUCKETS:-}" ] && extra+=(--redis-buckets "$BUCKETS")
# shellcheck disable=SC2206
extra+=(${AGENT_ARGS:-})
load_extra=()
if [ "${EVENT_TIME:-0}" = 1 ]; then
  extra+=(--namespace-event-rate loadtest=33334)
  load_extra+=(--event-time)
fi

printf '%-10s %-10s %-8s %-8s %-12s %s\n' ids bytes/id keys 'levels>0' encodings used_memory >&2
for n in $sizes; do
  rport="$(free_port)"
  start_redis "$rport"
  before=$(redis-cli -p "$rport" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')
  aport="$(free_port)"
  start_agent "$aport" --redis "redis://127.0.0.1:$rport" --near-cache-size 0 "${extra[@]}"
  cold=$(java -jar "$loadtest_jar" --target "http://127.0.0.1:$aport" --scenario cold --ids "$n" --batch 10000 \
    --workers 4 --quiet "${load_extra[@]}" | grep '^cold')
  echo "$cold" >&2
  ids_per_s=$(awk '{gsub(",", "", $4); print $4}' <<<"$cold")
  version=$(redis-cli -p "$rport" info server | grep -E '^(valkey|redis)_version:' | tail -1 | tr -d '\r')
  after=$(redis-cli -p "$rport" info memory | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')
  keys=$(redis-cli -p "$rport" dbsize)
  # One pass over every key on the server: extra bucket levels (dd{xxxx} or dd{t<8 bytes>}, plus one
  # byte) and encodings.
  census=$(redis-cli -p "$rport" eval "
    local cursor, levels, enc = '0', 0, {}
    repeat
      local r = redis.call('SCAN', cursor, 'MATCH', 'dd{*', 'COUNT', 1000)
      cursor = r[1]
      for _, k in ipairs(r[2]) do
        if #k == 9 or #k == 14 then levels = levels + 1 end
        local e = redis.call('OBJECT', 'ENCODING', k)
        enc[e] = (enc[e] or 0) + 1
      end
    until cursor == '0'
    local out = {}
    for e, c in pairs(enc) do out[#out + 1] = e .. '=' .. c end
    return levels .. ' ' .. table.concat(out, ',')" 0)
  levels=${census%% *}
  encodings=${census#* }
  per_id=$(echo "scale=2; ($after - $before) / $n" | bc)
  printf '%-10s %-10s %-8s %-8s %-12s %s\n' "$n" "$per_id" "$keys" "$levels" "$encodings" "$after" >&2
  lines+=("{\"ids\":$n,\"bytes_per_id\":$per_id,\"keys\":$keys,\"level_keys\":$levels,\"used_memory\":$after,\"ids_per_s\":$ids_per_s,\"server\":\"${version%%_version:*}\",\"version\":\"${version#*:}\"}")
  # Stop this size's agent and Redis before the next size.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done; done
  pids=()
done
printf '%s\n' "${lines[@]}"
