#!/usr/bin/env bash
# The sidecar's footprint, measured on its image the way the manifests run it: start to ready, memory idle
# and loaded, and the latency it adds to a call, in the format Dapr publishes for its sidecar.
#
#   loadtest/bench-footprint.sh [ready] [memory] [latency]      (all three by default)
#
# Builds nothing: run `mvn -B -DskipTests package` and build the image (deploy/Dockerfile) first; needs a
# running Docker engine, redis-server, curl. Every container runs with --network host (the agent beside its
# worker, the shards elsewhere), a read-only root filesystem and the data directory on a volume, as in a
# pod; the Redis shard runs on this machine, outside the limits.
#
#  ready    docker start to the first 200 of /health/ready, polled every 5 ms, and the agent's own count from
#           its JVM's start to listening; median of STARTS (10) starts per store, at --cpus CPUS (1).
#  memory   VmRSS of the agent's JVM idle (10 s after ready), then after IDS (2M) claims at RATE (5000) ids a
#           second in batches of BATCH (100) with 5 % copies (the load generator's mixed scenario), per store,
#           at --cpus CPUS and --memory MEMORY (256m, the sidecar manifests' limit), the embedded store's
#           with its slot file's size on top
#           (SLOTS, the default 16 Mi slots: 256 MiB), as the manifests count it: a claim writes a random page
#           of the file, so within a limit below the file the kernel writes pages out and reads them back at
#           every claim. Reports the JVM's own memory (RssAnon) and the file's pages (RssFile) apart, the
#           peak (VmHWM) and the cgroup's memory.current.
#  latency  Dapr's measure: at RPS (1000) requests a second, for batches of 1, 10, 100 and 1,000 ids, the
#           p50/p90/p99 of a call through the agent (Redis store, container at --cpus LATENCY_CPUS, 0.5)
#           against the same load generator calling the Redis shard directly (Tapjoy's Lua script, one call
#           per bucket); the difference is what the sidecar adds; and the agent's CPU a call. Each point runs
#           LATENCY_SECONDS (20), at most 4 M ids, after warm-up passes of 30 s at 20,000 ids/s in calls of
#           100 ids until the JIT compilers spend under 0.5 s of a pass, then passes of the point's own calls,
#           LATENCY_WARMUP (5) seconds each, until they spend under 100 ms of one: the steady state, as Dapr
#           measures it. Each point, on both sides, first sends LATENCY_WARMUP seconds of its own calls
#           unmeasured (at most 1 M ids), on the same connections: the load generator is a new JVM each time.
#           Latency counts from each call's scheduled time, so a point the agent cannot keep up with shows as
#           a growing latency, not a lower rate.
#
# Environment: IMAGE (dedup-agent:0.1.0), CPUS, MEMORY, LATENCY_CPUS, STARTS, IDS, RATE, BATCH, RPS,
# LATENCY_SECONDS, LATENCY_WARMUP, LATENCY_BATCHES ("1 10 100 1000"). Prints a Markdown table per part.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-footprint
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"

image="${IMAGE:-dedup-agent:0.1.0}"
cpus="${CPUS:-1}"
memory="${MEMORY:-256m}"
slots="${SLOTS:-16777216}"
latency_cpus="${LATENCY_CPUS:-0.5}"
starts="${STARTS:-10}"
ids="$(count "${IDS:-2M}")"
rate="${RATE:-5000}"
batch="${BATCH:-100}"
rps="${RPS:-1000}"
latency_seconds="${LATENCY_SECONDS:-20}"
latency_warmup="${LATENCY_WARMUP:-5}"
latency_batches="${LATENCY_BATCHES:-1 10 100 1000}"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(ready memory latency)
containers=()

remove_containers() {
  local c
  for c in "${containers[@]}"; do
    docker rm -f -v "$c" >/dev/null 2>&1 || true
  done
  containers=()
}
trap 'remove_containers; cleanup' EXIT
trap 'exit 130' INT TERM

command -v docker >/dev/null || { echo "$name: docker is not installed" >&2; exit 2; }
docker image inspect "$image" >/dev/null 2>&1 || {
  echo "$name: no image $image: mvn -B -DskipTests package && docker build -f deploy/Dockerfile -t $image ." >&2
  exit 2
}
require_jars

# create_agent CPUS STORE PORT: a stopped container of the image, as a pod runs it, named in c: MEMORY, and
# for the embedded store its file's SLOTS × 16 bytes on top.
created=0
create_agent() {
  local limit=$1 store=$2 port=$3 args mem
  created=$((created + 1))
  c="dedup-footprint-$$-$created"
  args=(--port "$port")
  mem="$(numfmt --from=iec "${memory^^}")"
  if [ "$store" = redis ]; then
    args+=(--redis "redis://127.0.0.1:$redis_port")
  else
    args+=(--embedded-slots "$slots")
    mem=$((mem + slots * 16))
  fi
  containers+=("$c")
  docker create --name "$c" --network host --cpus "$limit" --memory "$mem" --read-only \
    -v /var/lib/dedup "$image" "${args[@]}" >/dev/null
}

# wait_ready PORT: polls /health/ready every 5 ms for up to 60 s.
wait_ready() {
  local port=$1 i
  for i in $(seq 1 12000); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/health/ready" 2>/dev/null && return 0
    sleep 0.005
  done
  echo "$name: the agent on $port was not ready after 60 s" >&2
  return 1
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
pid_of() { docker inspect -f '{{.State.Pid}}' "$1"; }
rss_mib() { awk -v k="$2" '$1 == k":" {printf "%.0f", $2 / 1024}' "/proc/$1/status"; }
cgroup_mib() {
  local id f
  id="$(docker inspect -f '{{.Id}}' "$1")"
  for f in "/sys/fs/cgroup/system.slice/docker-$id.scope/memory.current" "/sys/fs/cgroup/docker/$id/memory.current" \
           "/sys/fs/cgroup/memory/docker/$id/memory.usage_in_bytes"; do
    [ -r "$f" ] && { awk '{printf "%.0f", $1 / 1048576}' "$f"; return; }
  done
  echo "?"
}

redis_port="$(free_port)"
start_redis "$redis_port"
cpu_model="$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)"
echo "$name: image $image, $(nproc) cores ($cpu_model), Redis $(redis-server --version | grep -o 'v=[0-9.]*')" >&2

ready() {
  echo
  echo "Start to ready, --cpus $cpus --memory $memory, median of $starts starts (ms):"
  echo
  echo "| store | docker start to ready | JVM start to listening (agent's log) |"
  echo "|---|---|---|"
  local store port t0 t1 i outer=() inner=()
  for store in embedded redis; do
    outer=()
    inner=()
    for i in $(seq 1 "$starts"); do
      port="$(free_port)"
      create_agent "$cpus" "$store" "$port"
      t0="$(now_ms)"
      docker start "$c" >/dev/null
      wait_ready "$port"
      t1="$(now_ms)"
      outer+=($((t1 - t0)))
      inner+=("$(docker logs "$c" 2>&1 | grep -o 'ready [0-9]* ms after the JVM started' | grep -o '[0-9]*' || echo 0)")
      docker stop -t 20 "$c" >/dev/null
      remove_containers
      redis-cli -p "$redis_port" flushall >/dev/null
    done
    echo "$name: $store: docker start to ready ${outer[*]}; JVM start to listening ${inner[*]}" >&2
    echo "| $store | $(printf '%s\n' "${outer[@]}" | median) | $(printf '%s\n' "${inner[@]}" | median) |"
  done
}

memory() {
  echo
  echo "Memory, --cpus $cpus --memory $memory (embedded: + $((slots * 16 / 1048576)) MiB of slot file): idle, then after"
  echo "$ids claims at $rate ids/s (batches of $batch, 5 % copies), MiB:"
  echo
  echo "| store | RSS idle (JVM + file) | RSS after: JVM | file pages | peak RSS | cgroup memory after |"
  echo "|---|---|---|---|---|---|"
  local store port pid idle anon file peak cg
  for store in embedded redis; do
    port="$(free_port)"
    create_agent "$cpus" "$store" "$port"
    docker start "$c" >/dev/null
    wait_ready "$port"
    sleep 10
    pid="$(pid_of "$c")"
    idle="$(rss_mib "$pid" VmRSS)"
    lines=()
    run_load --target "http://127.0.0.1:$port" --scenario mixed --ids "$ids" --batch "$batch" --workers 4 \
      --rate "$rate"
    anon="$(rss_mib "$pid" RssAnon)"
    file="$(rss_mib "$pid" RssFile)"
    peak="$(rss_mib "$pid" VmHWM)"
    cg="$(cgroup_mib "$c")"
    echo "| $store | $idle | $anon | $file | $peak | $cg |"
    docker stop -t 20 "$c" >/dev/null
    remove_containers
    redis-cli -p "$redis_port" flushall >/dev/null
  done
}

# container_jit_ms CONTAINER: CPU milliseconds the JIT compiler threads of CONTAINER's JVM have spent so far.
container_jit_ms() {
  jit_ms "$(pid_of "$1")"
}

# warm_until CONTAINER MS WHAT LOAD-ARGS...: passes of the load generator with LOAD-ARGS until one in which the
# container's JIT compilers spent under MS of CPU, at most WARMUP_PASSES (10).
warm_until() {
  local c=$1 limit=$2 what=$3 before after pass=0
  shift 3
  while :; do
    pass=$((pass + 1))
    before="$(container_jit_ms "$c")"
    lines=()
    run_load "$@"
    after="$(container_jit_ms "$c")"
    echo "$name: $what pass $pass: the JIT compilers spent $((after - before)) ms" >&2
    if [ $((after - before)) -lt "$limit" ] || [ "$pass" -ge "${WARMUP_PASSES:-10}" ]; then
      return 0
    fi
  done
}

# warm_container CONTAINER PORT: passes of 30 s at 20,000 ids/s in calls of 100 ids until the JIT compilers
# spend under 0.5 s of one: within half a core, the compilers take minutes of the first load, and a latency
# measured meanwhile is theirs.
warm_container() {
  warm_until "$1" 500 "warm-up" --target "http://127.0.0.1:$2" --scenario cold --batch 100 --workers 8 \
    --rate 20000 --ids 600000
}

# warm_point CONTAINER PORT BATCH IDS: this point's own calls, IDS at a time, until the JIT compilers spend
# under 100 ms of a pass. Calls of one id take paths that calls of 100 left cold; compiling them takes tens of
# milliseconds at a time, which within half a core's quota stalls the agent for the rest of a 100 ms period:
# the p99 of a point measured before they settle is the compilers'.
warm_point() {
  warm_until "$1" 100 "$3 ids a call, warm-up" --target "http://127.0.0.1:$2" --scenario cold --batch "$3" \
    --workers 16 --rate $((rps * $3)) --ids "$4"
}

latency() {
  echo
  echo "Added latency (Dapr's format), $rps requests/s, agent at --cpus $latency_cpus on Redis, ms:"
  echo
  echo "| ids a call | agent p50 | p90 | p99 | Redis directly p50 | p90 | p99 | added p50 | p90 | p99 | agent CPU µs a call |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  local port b n w a d jit
  port="$(free_port)"
  create_agent "$latency_cpus" redis "$port"
  docker start "$c" >/dev/null
  wait_ready "$port"
  lines=()
  warm_container "$c" "$port"
  for b in $latency_batches; do
    # at most 4 M ids a point: the generator encodes every body before its clock starts
    n=$((rps * b * latency_seconds))
    [ "$n" -le 4000000 ] || n=4000000
    w=$((rps * b * latency_warmup))
    [ "$w" -le 1000000 ] || w=1000000
    warm_point "$c" "$port" "$b" "$w"
    lines=()
    jit="$(container_jit_ms "$c")"
    run_load --target "http://127.0.0.1:$port" --scenario cold --batch "$b" --workers 16 --rate $((rps * b)) \
      --ids "$n" --warmup "$w" --cpu-agent "$(pid_of "$c")"
    echo "$name: $b ids a call: the JIT compilers spent $(($(container_jit_ms "$c") - jit)) ms while measured" >&2
    a="${lines[0]}"
    lines=()
    run_load --direct "redis://127.0.0.1:$redis_port" --scenario cold --batch "$b" --workers 16 \
      --rate $((rps * b)) --ids "$n" --warmup "$w"
    d="${lines[0]}"
    awk -v b="$b" -v a50="$(field "$a" p50_ms)" -v a90="$(field "$a" p90_ms)" -v a99="$(field "$a" p99_ms)" \
      -v d50="$(field "$d" p50_ms)" -v d90="$(field "$d" p90_ms)" -v d99="$(field "$d" p99_ms)" \
      -v cpu="$(field "$a" agent_cpu_us_per_id)" 'BEGIN {
        printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %+.2f | %+.2f | %+.2f | %.0f |\n",
          b, a50, a90, a99, d50, d90, d99, a50 - d50, a90 - d90, a99 - d99, cpu * b }'
  done
  docker stop -t 20 "$c" >/dev/null
  remove_containers
}

for part in "${parts[@]}"; do
  case "$part" in
    ready) ready ;;
    memory) memory ;;
    latency) latency ;;
    *) echo "$name: unknown part $part (ready, memory, latency)" >&2; exit 2 ;;
  esac
done
exit "$status"
