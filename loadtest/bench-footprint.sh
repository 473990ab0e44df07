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
#  ready    docker start to the first 200 of /health/ready, polled every 5 ms, the agent's own count from its
#           JVM's start to listening, and the CPU its JVM had spent when ready answered (all threads, from
#           /proc: what the agent controls, where the times also wait for a busy machine's cores); median of
#           STARTS (10) starts per store, at --cpus CPUS (1).
#  memory   VmRSS of the agent's JVM idle (10 s after ready), then after IDS (2M) claims at RATE (5000) ids a
#           second in batches of BATCH (100) with 5 % copies (the load generator's mixed scenario), per store,
#           at --cpus CPUS and --memory MEMORY (256m, the sidecar manifests' limit); the embedded store's
#           container at --memory EMBEDDED_MEMORY, by default MEMORY with its slot file's size on top (SLOTS,
#           the default 16 Mi slots: 256 MiB) as the embedded consumer's manifest counts it. EMBEDDED_MEMORY=256m
#           runs it within the sidecar's limit: a claim writes a random page of the file, so the kernel writes
#           pages out and reads them back as claims miss them (one page a miss, the mapping being advised for
#           random access). Reports the rate and p99 the agent kept, the JVM's own memory (RssAnon) and the
#           file's pages (RssFile) apart, the peak (VmHWM), the cgroup's memory in use, the file pages read
#           back (major faults), and whether the kernel killed the container for memory (OOMKilled).
#  latency  Dapr's measure: at RPS (1000) requests a second, for calls of each size in LATENCY_BATCHES ("1 10
#           100@200": a size@rate point runs at its own rate of calls a second, for sizes whose ids at RPS calls
#           a second are more than this machine serves, Redis directly included), the
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
# Environment: IMAGE (dedup-agent:0.1.0), CPUS, MEMORY, EMBEDDED_MEMORY, SLOTS, LATENCY_CPUS, STARTS, IDS, RATE, BATCH, RPS,
# LATENCY_SECONDS, LATENCY_WARMUP, LATENCY_BATCHES. Prints a Markdown table per part.
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
embedded_memory="${EMBEDDED_MEMORY:-}"
latency_cpus="${LATENCY_CPUS:-0.5}"
starts="${STARTS:-10}"
ids="$(count "${IDS:-2M}")"
rate="${RATE:-5000}"
batch="${BATCH:-100}"
rps="${RPS:-1000}"
latency_seconds="${LATENCY_SECONDS:-20}"
latency_warmup="${LATENCY_WARMUP:-5}"
latency_batches="${LATENCY_BATCHES:-1 10 100@200}"
for size in "$memory" ${embedded_memory:+"$embedded_memory"}; do
  numfmt --from=iec "${size^^}" >/dev/null 2>&1 || { echo "$name: not a memory size: $size (e.g. 256m)" >&2; exit 2; }
done
for point in $latency_batches; do
  [[ "$point" =~ ^[1-9][0-9]*(@[1-9][0-9]*)?$ ]] || {
    echo "$name: LATENCY_BATCHES: $point is not IDS or IDS@CALLS_A_SECOND (e.g. 100@200)" >&2
    exit 2
  }
done
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
# for the embedded store EMBEDDED_MEMORY, else MEMORY with its file's SLOTS × 16 bytes on top.
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
    if [ -n "$embedded_memory" ]; then
      mem="$(numfmt --from=iec "${embedded_memory^^}")"
    else
      mem=$((mem + slots * 16))
    fi
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
# cpu_ms PID: CPU milliseconds (user and system, every thread) the process PID has spent so far.
cpu_ms() { sed 's/.*) //' "/proc/$1/stat" | awk '{print ($12 + $13) * 10}'; }
# major_faults PID: pages PID has read from files since it started (the 12th field of stat, after the name).
major_faults() { sed 's/.*) //' "/proc/$1/stat" | awk '{print $10}'; }
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
  echo "| store | docker start to ready | JVM start to listening (agent's log) | JVM CPU to ready |"
  echo "|---|---|---|---|"
  local store port pid t0 t1 i outer=() inner=() cpu=()
  for store in embedded redis; do
    outer=()
    inner=()
    cpu=()
    for i in $(seq 1 "$starts"); do
      port="$(free_port)"
      create_agent "$cpus" "$store" "$port"
      t0="$(now_ms)"
      docker start "$c" >/dev/null
      pid="$(pid_of "$c")"
      wait_ready "$port"
      t1="$(now_ms)"
      cpu+=("$(cpu_ms "$pid")")
      outer+=($((t1 - t0)))
      inner+=("$(docker logs "$c" 2>&1 | grep -o 'ready [0-9]* ms after the JVM started' | grep -o '[0-9]*' || echo 0)")
      docker stop -t 20 "$c" >/dev/null
      remove_containers
      redis-cli -p "$redis_port" flushall >/dev/null
    done
    echo "$name: $store: docker start to ready ${outer[*]}; JVM start to listening ${inner[*]}; CPU ${cpu[*]}" >&2
    echo "| $store | $(printf '%s\n' "${outer[@]}" | median) | $(printf '%s\n' "${inner[@]}" | median) |" \
      "$(printf '%s\n' "${cpu[@]}" | median) |"
  done
}

memory() {
  local emb="${embedded_memory:-$memory + $((slots * 16 / 1048576)) MiB of slot file}"
  echo
  echo "Memory, --cpus $cpus --memory $memory (embedded: --memory $emb): idle, then after"
  echo "$ids claims offered at $rate ids/s (batches of $batch, 5 % copies), MiB:"
  echo
  echo "| store | RSS idle (JVM + file) | ids/s kept | p99 ms | RSS after: JVM | file pages | peak RSS | cgroup memory after | pages read back | OOM-killed |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  local store port pid idle anon file peak cg faults0 faults1 kept p99 oom
  for store in embedded redis; do
    port="$(free_port)"
    create_agent "$cpus" "$store" "$port"
    docker start "$c" >/dev/null
    wait_ready "$port"
    sleep 10
    pid="$(pid_of "$c")"
    idle="$(rss_mib "$pid" VmRSS)"
    faults0="$(major_faults "$pid")"
    lines=()
    run_load --target "http://127.0.0.1:$port" --scenario mixed --ids "$ids" --batch "$batch" --workers 4 \
      --rate "$rate"
    kept="$(field "${lines[0]:-}" ids_per_s)"
    p99="$(field "${lines[0]:-}" p99_ms)"
    if [ "$(docker inspect -f '{{.State.Running}}' "$c")" = true ]; then
      anon="$(rss_mib "$pid" RssAnon)"
      file="$(rss_mib "$pid" RssFile)"
      peak="$(rss_mib "$pid" VmHWM)"
      faults1="$(major_faults "$pid")"
      cg="$(cgroup_mib "$c")"
    else
      anon="exited $(docker inspect -f '{{.State.ExitCode}}' "$c")"
      file="-" peak="-" cg="-" faults1="$faults0"
      status=1
    fi
    oom="$(docker inspect -f '{{.State.OOMKilled}}' "$c")"
    [ "$oom" = false ] || status=1
    printf '| %s | %s | %.0f | %.1f | %s | %s | %s | %s | %s | %s |\n' "$store" "$idle" "${kept:-0}" "${p99:-0}" \
      "$anon" "$file" "$peak" "$cg" "$((faults1 - faults0))" "$oom"
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

# warm_point CONTAINER PORT BATCH IDS CALLS: this point's own calls, CALLS a second, until the JIT compilers spend
# under 100 ms of a pass. Calls of one id take paths that calls of 100 left cold; compiling them takes tens of
# milliseconds at a time, which within half a core's quota stalls the agent for the rest of a 100 ms period:
# the p99 of a point measured before they settle is the compilers'.
warm_point() {
  warm_until "$1" 100 "$3 ids a call, warm-up" --target "http://127.0.0.1:$2" --scenario cold --batch "$3" \
    --workers 16 --rate $(($5 * $3)) --ids "$4"
}

latency() {
  echo
  echo "Added latency (Dapr's format), agent at --cpus $latency_cpus on Redis, ms:"
  echo
  echo "| ids a call | calls/s | agent p50 | p90 | p99 | Redis directly p50 | p90 | p99 | added p50 | p90 | p99 | agent CPU µs a call |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
  local port point b r n w a d jit
  port="$(free_port)"
  create_agent "$latency_cpus" redis "$port"
  docker start "$c" >/dev/null
  wait_ready "$port"
  lines=()
  warm_container "$c" "$port"
  for point in $latency_batches; do
    b="${point%%@*}"
    r="$rps"
    [ "$point" = "$b" ] || r="${point#*@}"
    # at most 4 M ids a point: the generator encodes every body before its clock starts
    n=$((r * b * latency_seconds))
    [ "$n" -le 4000000 ] || n=4000000
    w=$((r * b * latency_warmup))
    [ "$w" -le 1000000 ] || w=1000000
    warm_point "$c" "$port" "$b" "$w" "$r"
    lines=()
    jit="$(container_jit_ms "$c")"
    run_load --target "http://127.0.0.1:$port" --scenario cold --batch "$b" --workers 16 --rate $((r * b)) \
      --ids "$n" --warmup "$w" --cpu-agent "$(pid_of "$c")"
    echo "$name: $b ids a call: the JIT compilers spent $(($(container_jit_ms "$c") - jit)) ms while measured" >&2
    a="${lines[0]}"
    lines=()
    run_load --direct "redis://127.0.0.1:$redis_port" --scenario cold --batch "$b" --workers 16 \
      --rate $((r * b)) --ids "$n" --warmup "$w"
    d="${lines[0]}"
    awk -v b="$b" -v r="$r" -v a50="$(field "$a" p50_ms)" -v a90="$(field "$a" p90_ms)" -v a99="$(field "$a" p99_ms)" \
      -v d50="$(field "$d" p50_ms)" -v d90="$(field "$d" p90_ms)" -v d99="$(field "$d" p99_ms)" \
      -v cpu="$(field "$a" agent_cpu_us_per_id)" 'BEGIN {
        printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %+.2f | %+.2f | %+.2f | %.0f |\n",
          b, r, a50, a90, a99, d50, d90, d99, a50 - d50, a90 - d90, a99 - d99, cpu * b }'
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
