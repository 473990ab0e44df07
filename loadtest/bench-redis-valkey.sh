#!/usr/bin/env bash
# Redis against Valkey in one run: bytes per id and ids/s side by side, medians of alternating rounds.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Each round runs, for redis-server and then
# valkey-server (REDIS_SERVER of the other scripts):
#   - bench-redis-memory.sh at IDS ids, fingerprint layout, then event-time layout (EVENT_TIME=1): one fresh
#     server and agent each, no near-cache, cold claims; bytes per id and the cold claims' ids/s;
#   - bench-redis.sh at IDS ids on three shards of that server, batches of 10,000, near-cache on: cold,
#     retry, duplicate and mixed ids/s.
# Then prints the medians per server as a Markdown table, and the load average before and after. Every
# process is stopped by its PID by the scripts it runs. Environment: IDS (default 2000000), ROUNDS (default
# 3), SERVERS (default "redis-server valkey-server"), AGENT_ARGS (default "--redis-timeout 30s": on a shared
# machine a pause must not turn into a 503 that stops the run). Everything shares this machine's cores:
# compare within one run.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
ids="${IDS:-2000000}"
rounds="${ROUNDS:-3}"
servers="${SERVERS:-redis-server valkey-server}"
export AGENT_ARGS="${AGENT_ARGS-"--redis-timeout 30s"}"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench-rv.XXXXXX")"
trap 'rm -rf "$work"' EXIT

for s in $servers; do
  command -v "$s" >/dev/null || { echo "bench-redis-valkey: $s is not installed" >&2; exit 2; }
done

for round in $(seq 1 "$rounds"); do
  for s in $servers; do
    echo "bench-redis-valkey: round $round: $s" >&2
    SIZES="$ids" REDIS_SERVER="$s" bash "$root/loadtest/bench-redis-memory.sh" | sed "s/^/$s fingerprint /" >>"$work/memory"
    SIZES="$ids" REDIS_SERVER="$s" EVENT_TIME=1 bash "$root/loadtest/bench-redis-memory.sh" |
      sed "s/^/$s event-time /" >>"$work/memory"
    IDS="$ids" BATCHES=10000 REDIS_SERVER="$s" bash "$root/loadtest/bench-redis.sh" | grep '^{' |
      sed "s/^/$s /" >>"$work/throughput"
  done
done

# field NAME: the number of a JSON field, from stdin lines
field() { grep -o "\"$1\":[-0-9.]*" | cut -d: -f2; }
# median of numbers on stdin
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print "-"; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
# thousands: ids/s as K or M
human() { awk '{ if ($1 == "-") print "-"; else if ($1 >= 1e6) printf "%.2f M\n", $1/1e6; else printf "%.0f K\n", $1/1e3 }'; }

header="| measured ($ids ids; medians of $rounds rounds) |"
rule="|---|"
for s in $servers; do
  version=$(grep "^$s " "$work/memory" | head -1 | grep -o '"server":"[a-z]*","version":"[^"]*"' |
    sed -E 's/"server":"([a-z]*)","version":"([^"]*)"/\1 \2/')
  header="$header $version |"
  rule="$rule---|"
done
echo
echo "$header"
echo "$rule"
row() { # label, file, prefix, field, format
  local out="| $1 |" v
  for s in $servers; do
    v=$(grep "^$s $3" "$2" | field "$4" | median)
    [ "$5" = ids ] && v=$(human <<<"$v")
    out="$out $v |"
  done
  echo "$out"
}
row "bytes per id, fingerprint layout (1 shard)" "$work/memory" "fingerprint " bytes_per_id bytes
row "bytes per id, event-time layout (1 shard)" "$work/memory" "event-time " bytes_per_id bytes
row "cold ids/s, fingerprint layout (1 shard, no near-cache)" "$work/memory" "fingerprint " ids_per_s ids
row "cold ids/s, event-time layout (1 shard, no near-cache)" "$work/memory" "event-time " ids_per_s ids
for scenario in cold retry duplicate mixed; do
  row "$scenario ids/s, 3 shards, near-cache, batch 10,000" "$work/throughput" "{\"scenario\":\"$scenario\"" ids_per_s ids
done
echo
echo "load average (1, 5, 15 min): $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after; $(nproc) cores"
echo "every line:"
cat "$work/memory" "$work/throughput"
