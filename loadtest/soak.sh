#!/usr/bin/env bash
# A soak: does the Redis tier stay flat and right for an hour under a steady load, through an agent crash and a
# shard restart?
#
#   loadtest/soak.sh
#
# Two agents on three Redis shards (append-only file, fsync on every write), --window WINDOW; the load generator
# offers RATE ids a second over both agents for DURATION (the mixed stream: 5 % of messages written twice, no
# replays), a batch answered 503 or not at all sent again, to the other agent, until answered (--resend). At 45 %
# of DURATION the second agent is killed (kill -9) and started again; at 55 % the second shard is killed (kill -9)
# and started again on its append-only file. Every SAMPLE seconds: each agent's RSS, the shards' used_memory, the
# share of CPU time the hypervisor stole from the machine (a p99 that moves with it is the host's, not ours), and
# from the load generator (--samples) the ids answered, their p99 and the wrong verdicts so far.
#
# At the end, OUT/soak.md (the checks, the faults, a Markdown table of the samples) and OUT/soak.csv (the samples),
# and PASS or FAIL on:
#   - Redis memory flat: over the samples after the first window and one sweep period (claims expire after WINDOW;
#     ended claims are swept out every quarter window, at least every minute), the median of the shards'
#     used_memory in the last third of them is within MEMORY_TOLERANCE % of that in the first third;
#   - agent RSS flat: the same for each agent's RSS, within RSS_TOLERANCE %, over the samples a window and a sweep
#     period after its (re)start (the restarted agent is judged when at least 3 samples are left);
#   - p99 stable: outside the faults (from each kill to a minute after the restart), the median p99 of the last
#     third of the samples after the first window at most P99_DRIFT times that of the first third;
#   - no false drop and no missed duplicate (the load generator's ledger).
#
# Builds nothing: run `mvn -B -DskipTests package` first. Starts its processes on free ports below the ephemeral
# range and stops every one by PID however it ends. Exit status: 0 PASS, 1 FAIL, 2 usage.
#
# Environment: DURATION (1h; 90s, 6m, 2h), WINDOW (10m), RATE (10000 ids a second over both agents), SAMPLE (30 s),
# BATCH (1000), WORKERS (4), OUT (docs/results), MEMORY_TOLERANCE (5), RSS_TOLERANCE (10), P99_DRIFT (1.5),
# AGENT_JAVA (a Java 25 under /usr/lib/jvm, the image's runtime), AGENT_JAVA_OPTS (the image's, deploy/jvm.options,
# with the heap a 256 MiB container gives it: -XX:MaxRAM=256m), AGENT_ARGS, REDIS_ARGS, REDIS_SERVER,
# LOADTEST_JAVA_OPTS. A short check of the script itself: DURATION=6m WINDOW=2m.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=soak
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-soak.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

# seconds D: a duration like 90s, 10m or 1h in seconds.
seconds() {
  case "$1" in
    *h) echo $(( ${1%h} * 3600 )) ;;
    *m) echo $(( ${1%m} * 60 )) ;;
    *s) echo "${1%s}" ;;
    *) echo "$name: '$1' is not a duration like 90s, 10m or 1h" >&2; exit 2 ;;
  esac
}

duration_arg="${DURATION:-1h}"
window_arg="${WINDOW:-10m}"
duration="$(seconds "$duration_arg")"
window="$(seconds "$window_arg")"
rate="${RATE:-10000}"
sample="${SAMPLE:-30}"
batch="${BATCH:-1000}"
workers="${WORKERS:-4}"
out="${OUT:-$root/docs/results}"
# The agents run as the sidecar's image runs them: its Java, its JVM options, the heap of the manifests' limit.
if [ -z "${AGENT_JAVA:-}" ]; then
  for release in /usr/lib/jvm/*/release; do
    if grep -qs '^JAVA_VERSION="25' "$release"; then
      AGENT_JAVA="$(dirname "$release")/bin/java"
      break
    fi
  done
fi
if [ -z "${AGENT_JAVA:-}" ] && [ -z "${AGENT_JAVA_OPTS:-}" ]; then
  echo "$name: no Java 25 under /usr/lib/jvm for the image's JVM options: set AGENT_JAVA to one, or AGENT_JAVA_OPTS" \
    "to options your java takes" >&2
  exit 2
fi
export AGENT_JAVA="${AGENT_JAVA:-java}"
# As the image sets it: two malloc arenas rather than one per thread that ever allocated.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export AGENT_JAVA_OPTS="${AGENT_JAVA_OPTS:-@$root/deploy/jvm.options -XX:MaxRAM=256m}"
# The sweep runs every quarter window, at least every minute and at most every six hours.
sweep=$(( window / 4 ))
(( sweep < 60 )) && sweep=60
(( sweep > 21600 )) && sweep=21600
steady=$(( window + sweep ))
if (( duration < steady + 3 * sample )); then
  echo "$name: DURATION $duration_arg leaves under 3 samples after the first window and a sweep (${steady} s)" >&2
  exit 2
fi

require_jars
mkdir -p "$out"

# start_shard PORT: a shard with its append-only file (fsync on every write) in a directory of its own.
start_shard() {
  mkdir -p "$work/shard-$1"
  start_redis "$1" --appendonly yes --appendfsync always --dir "$work/shard-$1"
  echo "${pids[-1]}" >"$work/shard-$1.pid"
}

# launch_agent I: agent I (1 or 2) on its port and the shards; its PID in agent-I.pid.
launch_agent() {
  # shellcheck disable=SC2086
  start_agent "${agent_ports[$1]}" --redis "$shards" --window "$window_arg" ${AGENT_ARGS:-}
  echo "${pids[-1]}" >"$work/agent-$1.pid"
}

# rss I: agent I's resident set in KiB, or - while it is down.
rss() {
  local pid kib
  pid="$(cat "$work/agent-$1.pid" 2>/dev/null)" || true
  kib="$( [ -n "$pid" ] && awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null)" || true
  echo "${kib:--}"
}

# cpu_ticks: the machine's CPU time so far, all of it and stolen (by the hypervisor), from /proc/stat.
cpu_ticks() {
  awk '/^cpu / {print $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9, $9; exit}' /proc/stat
}

# redis_memory: the shards' used_memory summed, or - while one does not answer.
redis_memory() {
  local p m total=0
  for p in "${ports[@]}"; do
    m="$(redis-cli -p "$p" info memory 2>/dev/null | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r')"
    [ -n "$m" ] || { echo -; return; }
    total=$(( total + m ))
  done
  echo "$total"
}

ports=()
uris=()
for _ in 1 2 3; do
  p="$(free_port)"
  start_shard "$p"
  ports+=("$p")
  uris+=("redis://127.0.0.1:$p")
done
shards="$(IFS=,; echo "${uris[*]}")"
agent_ports=(- "$(free_port)" "$(free_port)")
launch_agent 1
launch_agent 2
targets="http://127.0.0.1:${agent_ports[1]},http://127.0.0.1:${agent_ports[2]}"
ids=$(( rate * duration ))
echo "$name: $ids ids at $rate a second over two agents for $duration_arg, window $window_arg, 5 % duplicates;" \
  "preparing them first" >&2

# shellcheck disable=SC2086
java ${LOADTEST_JAVA_OPTS:-} -jar "$loadtest_jar" --target "$targets" --scenario mixed --dup-rate 0.05 \
  --retry-rate 0 --ids "$ids" --rate "$rate" --batch "$batch" --workers "$workers" --resend --timeout-ms 10000 \
  --samples "$work/load.jsonl" --sample-every "$sample" --run-id "soak-$(date +%s)" --output json --quiet \
  >"$work/load.out" 2>"$work/load.err" &
load_pid=$!
pids+=("$load_pid")
until [ -s "$work/load.jsonl" ]; do
  kill -0 "$load_pid" 2>/dev/null || { echo "$name: the load generator exited:" >&2; cat "$work/load.err" >&2; exit 1; }
  sleep 1
done
t0="$(date +%s)"
echo "$name: sending since $(date -u -d "@$t0" +%H:%M:%S) UTC" >&2

(
  read -r total_was steal_was < <(cpu_ticks)
  while sleep "$sample"; do
    read -r total steal < <(cpu_ticks)
    steal_pct="$(awk -v d="$((total - total_was))" -v s="$((steal - steal_was))" 'BEGIN {printf "%.0f", d ? 100 * s / d : 0}')"
    total_was=$total steal_was=$steal
    echo "$(( $(date +%s) - t0 )) $(rss 1) $(rss 2) $(redis_memory) $steal_pct"
  done
) >"$work/memory.txt" &
sampler=$!
pids+=("$sampler")

# at FRACTION: sleeps until that share of the run has passed.
at() {
  local due
  due=$(awk -v t0="$t0" -v d="$duration" -v f="$1" 'BEGIN {printf "%d", t0 + d * f}')
  while (( $(date +%s) < due )); do sleep 1; done
}

at 0.45
agent_killed=$(( $(date +%s) - t0 ))
agent_pid="$(cat "$work/agent-2.pid")"
kill -KILL "$agent_pid"
wait "$agent_pid" 2>/dev/null || true
echo "$name: agent 2 killed (kill -9) at $agent_killed s" >&2
launch_agent 2
agent_back=$(( $(date +%s) - t0 ))
echo "$name: agent 2 ready again at $agent_back s" >&2

at 0.55
shard_killed=$(( $(date +%s) - t0 ))
shard_port="${ports[1]}"
shard_pid="$(cat "$work/shard-$shard_port.pid")"
kill -KILL "$shard_pid"
wait "$shard_pid" 2>/dev/null || true
echo "$name: shard 2 killed (kill -9) at $shard_killed s" >&2
sleep 1
start_shard "$shard_port"
until redis-cli -p "$shard_port" ping 2>/dev/null | grep -q PONG; do sleep 0.2; done
shard_back=$(( $(date +%s) - t0 ))
echo "$name: shard 2 back on its append-only file at $shard_back s" >&2

load_rc=0
wait "$load_pid" || load_rc=$?
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
cat "$work/load.err" >&2

machine="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
redis_version="$("$redis_server" --version | awk '{print $1, $3}')"
header="$(date -u +%Y-%m-%d) · $machine · 3 × $redis_version (append-only file, fsync always) · 2 agents"
agent_java_version="$("$AGENT_JAVA" -version 2>&1 | awk -F'"' '/version/ {print $2; exit}')"
header+=" (\`--window $window_arg${AGENT_ARGS:+ $AGENT_ARGS}\`, Java $agent_java_version \`${AGENT_JAVA_OPTS//$root\//}\`) ·"
header+=" \`DURATION=$duration_arg WINDOW=$window_arg RATE=$rate loadtest/soak.sh\`: $rate ids/s offered,"
header+=" batches of $batch from $workers workers, 5 % of messages written twice"
verdict=0
HEADER="$header" python3 - "$work" "$out" "$sample" "$steady" "$duration" "$agent_killed" "$agent_back" \
  "$shard_killed" "$shard_back" "${MEMORY_TOLERANCE:-5}" "${RSS_TOLERANCE:-10}" "${P99_DRIFT:-1.5}" "$load_rc" \
  <<'PY' || verdict=$?
import json, os, statistics, sys
(work, out, sample, steady, duration, agent_killed, agent_back, shard_killed, shard_back,
 mem_tol, rss_tol, p99_drift, load_rc) = sys.argv[1:]
sample, steady, duration = int(sample), int(steady), int(duration)
agent_killed, agent_back, shard_killed, shard_back = map(int, (agent_killed, agent_back, shard_killed, shard_back))
mem_tol, rss_tol, p99_drift, load_rc = float(mem_tol), float(rss_tol), float(p99_drift), int(load_rc)

loads = [json.loads(l) for l in open(f"{work}/load.jsonl") if l.startswith("{")]
start = loads[0]["epoch_s"]
memory = []
for line in open(f"{work}/memory.txt"):
    t, r1, r2, m, steal = line.split()
    memory.append((int(t), r1, r2, m, int(steal)))

def load_at(t):
    """The load sample nearest to t seconds (its interval ends at elapsed_s)."""
    return min(loads[1:] or loads, key=lambda l: abs(l["elapsed_s"] - t))

faults = [(agent_killed, agent_back + 60), (shard_killed, shard_back + 60)]
rows = []
for t, r1, r2, m, steal in memory:
    l = load_at(t)
    quiet = all(t - sample >= e or t < s for s, e in faults)
    rows.append(dict(t=t, rss1=None if r1 == "-" else int(r1) / 1024, rss2=None if r2 == "-" else int(r2) / 1024,
                     redis=None if m == "-" else int(m) / 1048576, ids_per_s=l["ids_per_s"], p99=l["p99_ms"],
                     false_drops=l["false_drops"], missed=l["missed_duplicates"], failed=l["failed_requests"],
                     steal=steal, quiet=quiet))

def drift(values):
    """How far the median of the last third of values is from that of the first third, in %; None: too few."""
    values = [v for v in values if v is not None]
    if len(values) < 3:
        return None
    third = max(1, len(values) // 3)
    first, last = statistics.median(values[:third]), statistics.median(values[-third:])
    return 100 * abs(last - first) / first, first, last, min(values), max(values)

def flat(what, values, tolerance, unit, fmt):
    d = drift(values)
    if d is None:
        check(what, None, "not judged: fewer than 3 samples")
    else:
        check(what, d[0] <= tolerance, f"median {d[1]:{fmt}} {unit} in the first third, {d[2]:{fmt}} {unit} in the "
              f"last ({d[0]:.1f} %); {d[3]:{fmt}} to {d[4]:{fmt}} {unit}")

checks = []
def check(what, ok, detail):
    checks.append((what, ok, detail))

flat(f"Redis used_memory flat from {steady} s (within {mem_tol:g} %)",
     [r["redis"] for r in rows if r["t"] >= steady], mem_tol, "MiB", ".1f")
flat(f"agent 1 RSS flat from {steady} s (within {rss_tol:g} %)",
     [r["rss1"] for r in rows if r["t"] >= steady], rss_tol, "MiB", ".0f")
flat(f"agent 2 RSS flat from {agent_back + steady} s, a window and a sweep after its restart (within {rss_tol:g} %)",
     [r["rss2"] for r in rows if r["t"] >= agent_back + steady], rss_tol, "MiB", ".0f")
quiet_rows = [r for r in rows if r["t"] >= steady and r["quiet"]]
quiet = [r["p99"] for r in quiet_rows]
if len(quiet) >= 3:
    third = max(1, len(quiet) // 3)
    first, last = statistics.median(quiet[:third]), statistics.median(quiet[-third:])
    steals = [r["steal"] for r in quiet_rows]
    check(f"p99 stable: last third at most {p99_drift:g} x the first", last <= p99_drift * max(first, 0.001),
          f"median p99 {first:.1f} ms in the first third, {last:.1f} ms in the last, at most {max(quiet):.1f} ms"
          f" outside the faults; the hypervisor took {statistics.median(steals[:third]):.0f} % and "
          f"{statistics.median(steals[-third:]):.0f} % of the machine's CPU time (median)")
else:
    check("p99 stable", False, "too few samples outside the faults")
final = loads[-1]
check("no false drop", final["false_drops"] == 0, f'{final["false_drops"]} false drops')
check("no missed duplicate", final["missed_duplicates"] == 0, f'{final["missed_duplicates"]} missed duplicates')
check("the load generator exited 0", load_rc == 0, f"exit status {load_rc}")
passed = all(ok is not False for _, ok, _ in checks)

with open(f"{out}/soak.csv", "w") as f:
    f.write("seconds,agent1_rss_mib,agent2_rss_mib,redis_used_memory_mib,ids_per_s,p99_ms,false_drops,"
            "missed_duplicates,failed_requests,cpu_steal_pct\n")
    for r in rows:
        f.write(",".join("" if r[k] is None else (f"{r[k]:.1f}" if isinstance(r[k], float) else str(r[k]))
                         for k in ("t", "rss1", "rss2", "redis", "ids_per_s", "p99", "false_drops", "missed",
                                   "failed", "steal")) + "\n")

def cell(v, fmt):
    return "down" if v is None else fmt.format(v)

with open(f"{out}/soak.md", "w") as f:
    f.write("# Soak: two agents, three shards, an agent crash and a shard restart\n\n")
    f.write("Linked from [guarantees.md](../guarantees.md#soak). Written by `loadtest/soak.sh`; the samples also in "
            "[soak.csv](soak.csv).\n\n")
    f.write(os.environ["HEADER"] + f"; {int(final['elapsed_s'])} s of load\n\n")
    f.write(f"**{'PASS' if passed else 'FAIL'}**\n\n| check | result | |\n|---|---|---|\n")
    for what, ok, detail in checks:
        f.write(f"| {what} | {'pass' if ok else ('-' if ok is None else '**fail**')} | {detail} |\n")
    f.write(f"\nFaults: agent 2 killed (kill -9) at {agent_killed} s, ready again at {agent_back} s; shard 2 killed "
            f"(kill -9) at {shard_killed} s, answering again on its append-only file at {shard_back} s. "
            f"{final['failed_requests']} requests failed (503 or refused) and were sent again until answered; "
            f"{final['unexpected']} other verdicts differed from the ledger's.\n\n")
    f.write("| s | agent 1 RSS MiB | agent 2 RSS MiB | Redis used_memory MiB | ids/s | p99 ms | false drops | "
            "missed duplicates | failed requests | CPU steal % |\n|---|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        f.write(f"| {r['t']} | {cell(r['rss1'], '{:.0f}')} | {cell(r['rss2'], '{:.0f}')} | "
                f"{cell(r['redis'], '{:.1f}')} | {r['ids_per_s']:.0f} | {r['p99']:.1f}{'' if r['quiet'] else ' *'} | "
                f"{r['false_drops']} | {r['missed']} | {r['failed']} | {r['steal']} |\n")
    f.write("\n\\* a sample within a fault (from a kill to a minute after the restart), not in the p99 check. CPU steal: "
            "the share of the machine's CPU time its hypervisor gave to other guests over the sample.\n")

print(open(f"{out}/soak.md").read())
sys.exit(0 if passed else 1)
PY
echo "$name: $([ "$verdict" = 0 ] && echo PASS || echo FAIL); $out/soak.md and $out/soak.csv" >&2
exit "$verdict"
