# Shared by the bench-*.sh scripts: sourced, not run. Starts and stops the processes of a benchmark
# (the agent jar, redis-server, the delaying proxy), always by PID, and runs the load generator.
# Expects: root (the repository), name (the script's name for messages), work (a temp directory).
# REDIS_SERVER (default redis-server) is the server program the shards run, e.g. valkey-server; REDIS_ARGS,
# more flags for every server started (start_redis).

agent_jar="$root/agent/target/dedup-agent.jar"
redis_server="${REDIS_SERVER:-redis-server}"
loadtest_jar="$root/loadtest/target/dedup-loadtest.jar"
pids=()
lines=()
status=0

# require_jars: checks that the build is there, then runs copies of its jars from the work directory, so that
# a build during a long run cannot swap classes under the running agent.
require_jars() {
  for jar in "$agent_jar" "$loadtest_jar"; do
    if [ ! -f "$jar" ]; then
      echo "$name: $jar is missing; run 'mvn -B -DskipTests package' first" >&2
      exit 2
    fi
  done
  cp "$agent_jar" "$work/dedup-agent.jar"
  cp "$loadtest_jar" "$work/dedup-loadtest.jar"
  agent_jar="$work/dedup-agent.jar"
  loadtest_jar="$work/dedup-loadtest.jar"
}

free_port() {
  local port
  for _ in $(seq 1 100); do
    # Below Linux's ephemeral range (32768-60999), so that no outgoing connection holds it.
    port=$(( 20000 + RANDOM % 12000 ))
    # A port nobody accepts on is free enough for a benchmark.
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "$name: no free port found" >&2
  return 1
}

# stop_processes: stops every process started so far (SIGTERM, then SIGKILL after 10 s).
stop_processes() {
  local pid
  for pid in "${pids[@]}"; do
    kill -TERM "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null || true
  done
  pids=()
}

# cleanup: stops every process started here, removes the network of start_net_shards and the work directory
# (the scripts' EXIT trap).
cleanup() {
  stop_processes
  remove_net
  rm -rf "$work"
}

# start_redis PORT [ARGS...]: a $REDIS_SERVER keeping nothing on disk, evicting nothing, with REDIS_ARGS and ARGS;
# on redis_host (127.0.0.1), in the network namespace redis_netns when it is set.
start_redis() {
  local port=$1 host="${redis_host:-127.0.0.1}" in_ns=()
  shift
  command -v "$redis_server" >/dev/null || { echo "$name: $redis_server is not installed" >&2; exit 2; }
  [ -n "${redis_netns:-}" ] && in_ns=(ip netns exec "$redis_netns")
  # shellcheck disable=SC2086
  "${in_ns[@]}" "$redis_server" --port "$port" --bind "$host" --save "" --appendonly no \
    --maxmemory-policy noeviction --dir "$work" --logfile "$work/redis-$port.log" --daemonize no ${REDIS_ARGS:-} \
    "$@" >/dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do
    redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "$name: $redis_server on $host:$port did not start" >&2
  cat "$work/redis-$port.log" >&2
  exit 1
}

# start_shards N: N servers (start_redis) on free ports; fills ports, hosts, uris and shards (comma-joined).
# With NET_DELAY set, start_net_shards instead: the shards on hosts of their own behind the delaying proxy.
start_shards() {
  if [ -n "${NET_DELAY:-}" ]; then
    start_net_shards "$1" "$NET_DELAY" "${NET_JITTER:-0}"
    return
  fi
  ports=()
  hosts=()
  uris=()
  local p
  for _ in $(seq 1 "$1"); do
    p="$(free_port)"
    start_redis "$p"
    ports+=("$p")
    hosts+=(127.0.0.1)
    uris+=("redis://127.0.0.1:$p")
  done
  shards="$(IFS=,; echo "${uris[*]}")"
}

# flush_shards: empties the shards of start_shards but for their topology record, which a running agent
# checks on every call.
flush_shards() {
  local i t
  for i in "${!ports[@]}"; do
    t="$(redis-cli -h "${hosts[$i]}" -p "${ports[$i]}" get dd:topology)"
    redis-cli -h "${hosts[$i]}" -p "${ports[$i]}" flushall >/dev/null
    [ -z "$t" ] || redis-cli -h "${hosts[$i]}" -p "${ports[$i]}" set dd:topology "$t" >/dev/null
  done
}

# The delaying path. Each shard runs on a host of its own: a network namespace ${net_prefix}h<n> joined to
# this machine by a veth pair (the shard at 10.214.<n>.2, this machine at 10.214.<n>.1), so that its traffic
# crosses a network device rather than loopback. One DelayProxy process (loadtest's dev.dedup.loadtest.net)
# on 127.0.0.1 stands in front of all of them and holds every chunk back half the round trip each way, as
# `tc qdisc netem delay` on the shards' side would (this kernel has no netem). Needs root and `ip netns`.
net_prefix="ddnb$$"
net_namespaces=()
proxy_pid=""

# remove_net: removes the namespaces of start_net_shards (their veth pairs go with them), after killing by PID
# what still runs in them, and stops the proxy; also those of an earlier run whose script is gone.
remove_net() {
  local ns pid owner
  if [ -n "$proxy_pid" ]; then
    exec 8>&- 2>/dev/null || true
    kill -TERM "$proxy_pid" 2>/dev/null || true
    proxy_pid=""
  fi
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^ddnb[0-9]*h[0-9]*$' || true); do
    owner="${ns#ddnb}"
    owner="${owner%h*}"
    # This run's namespaces, and those of a run that died without its EXIT trap (kill -9).
    [ "$owner" = "$$" ] || ! kill -0 "$owner" 2>/dev/null || continue
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      kill -KILL "$pid" 2>/dev/null || true
    done
    for _ in $(seq 1 50); do
      [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
      sleep 0.1
    done
    ip netns del "$ns" 2>/dev/null || echo "$name: could not remove network namespace $ns" >&2
  done
  net_namespaces=()
}

# start_net_shards N ROUND_TRIP JITTER: N servers, each on a host of its own, behind one DelayProxy adding
# ROUND_TRIP ± JITTER (e.g. 1ms 0.2ms; 0 0: the proxy's path without delay). Fills ports and hosts (the
# shards' own addresses, for redis-cli), direct_uris and direct_shards (those addresses as the agent would take
# them), uris and shards (the proxy's).
start_net_shards() {
  local n=$1 i ns link p pairs=() line
  [ "$(id -u)" = 0 ] || { echo "$name: NET_DELAY needs root (network namespaces)" >&2; exit 2; }
  command -v ip >/dev/null || { echo "$name: NET_DELAY needs ip (iproute2)" >&2; exit 2; }
  remove_net
  if ip -o addr show | grep -q ' inet 10\.214\.'; then
    echo "$name: 10.214.0.0/16 is in use on this machine (another run with NET_DELAY?); not touching it" >&2
    exit 2
  fi
  ports=()
  hosts=()
  direct_uris=()
  for i in $(seq 1 "$n"); do
    ns="${net_prefix}h$i"
    link="${net_prefix}v$i"
    ip netns add "$ns"
    net_namespaces+=("$ns")
    ip link add "$link" type veth peer name eth0 netns "$ns"
    ip addr add "10.214.$i.1/24" dev "$link"
    ip link set "$link" up
    ip netns exec "$ns" ip link set lo up
    ip netns exec "$ns" ip addr add "10.214.$i.2/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    p="$(free_port)"
    # Reachable only from this machine (the veth pair): protected mode would refuse the non-loopback peer.
    redis_host="10.214.$i.2" redis_netns="$ns" start_redis "$p" --protected-mode no
    ports+=("$p")
    hosts+=("10.214.$i.2")
    direct_uris+=("redis://10.214.$i.2:$p")
    pairs+=("127.0.0.1:0=10.214.$i.2:$p")
  done
  direct_shards="$(IFS=,; echo "${direct_uris[*]}")"
  rm -f "$work/proxy.in" "$work/proxy.out"
  mkfifo "$work/proxy.in"
  # shellcheck disable=SC2086
  java ${PROXY_JAVA_OPTS:-} -cp "$loadtest_jar" dev.dedup.loadtest.net.DelayProxy --round-trip "$2" \
    --jitter "$3" "${pairs[@]}" <"$work/proxy.in" >"$work/proxy.out" 2>&1 &
  proxy_pid=$!
  pids+=("$proxy_pid")
  exec 8>"$work/proxy.in"
  for _ in $(seq 1 300); do
    grep -q '^ready$' "$work/proxy.out" 2>/dev/null && break
    kill -0 "$proxy_pid" 2>/dev/null || { echo "$name: the delaying proxy exited:" >&2; cat "$work/proxy.out" >&2; exit 2; }
    sleep 0.1
  done
  grep -q '^ready$' "$work/proxy.out" || { echo "$name: the delaying proxy did not start" >&2; exit 1; }
  uris=()
  while read -r line; do
    uris+=("redis://${line%%=*}")
  done < <(grep '=' "$work/proxy.out")
  shards="$(IFS=,; echo "${uris[*]}")"
  echo "$name: shards on ${hosts[*]}, behind the delaying proxy (PID $proxy_pid) at $shards, round trip $2 ± $3" >&2
}

# net_round_trip ROUND_TRIP JITTER: changes the proxy's delay, once it says so.
net_round_trip() {
  local before
  before="$(grep -c '^ok ' "$work/proxy.out" || true)"
  echo "round-trip $1 $2" >&8
  for _ in $(seq 1 100); do
    [ "$(grep -c '^ok ' "$work/proxy.out" || true)" -gt "$before" ] && return 0
    grep -q '^error ' "$work/proxy.out" && { grep '^error ' "$work/proxy.out" >&2; exit 2; }
    sleep 0.05
  done
  echo "$name: the delaying proxy did not take round trip $1 ± $2" >&2
  exit 1
}

# ping_ms HOST PORT: the mean PING round trip in ms over 2 s (redis-cli --latency, a PING each 10 ms).
ping_ms() {
  timeout 2.5 redis-cli -h "$1" -p "$2" --latency -i 2 --raw 2>/dev/null | tail -1 | awk '{print $3}'
}

# cpu_seconds PID: CPU time (user + system) the process PID has used so far, from /proc.
cpu_seconds() {
  sed 's/.*) //' "/proc/$1/stat" | awk '{printf "%.2f", ($12 + $13) / 100}'
}

# jit_ms PID: CPU milliseconds the JIT compiler threads of the JVM PID have spent so far, from /proc (jstat
# cannot read a JVM started with -XX:-UsePerfData, as the image's options start it).
jit_ms() {
  local t ticks total=0
  for t in /proc/"$1"/task/*; do
    case "$(cat "$t/comm" 2>/dev/null)" in
      C1\ CompilerThre* | C2\ CompilerThre*)
        # utime and stime: the 14th and 15th fields, counted after the name in parentheses, which has a space
        ticks="$(sed 's/.*) //' "$t/stat" 2>/dev/null | awk '{print $12 + $13}')"
        total=$((total + ${ticks:-0} * 10)) ;;
    esac
  done
  echo "$total"
}

# warm_agent PORT PID IDS [LOAD ARGS...]: warms the agent on PORT up as a sidecar that has been running is:
# passes of IDS fresh ids, cold then retry, in batches of 1,000 from 4 workers (not measured), on flushed
# shards, until a pass in which its JIT compilers spent under 0.5 s of CPU, at most WARMUP_PASSES (10). On 2
# shared cores the compilers spent 10.6, 7.7, 3.5, 1.5 and 0.1 s in the
# first five passes of 1,000,000 ids, and the agent's CPU per cold id fell from 7.4 to 1.4 us: a fixed
# warm-up short of that measures the compiler. Sets warm_passes and warm_compile (the last pass's seconds).
warm_agent() {
  local port=$1 pid=$2 ids=$3 before after
  shift 3
  warm_passes=0
  while :; do
    warm_passes=$((warm_passes + 1))
    before="$(jit_ms "$pid")"
    flush_shards
    lines=()
    run_load --scenario cold,retry --ids "$ids" --batch 1000 --workers 4 --target "http://127.0.0.1:$port" "$@" \
      --run-id "agent-warmup-$warm_passes"
    after="$(jit_ms "$pid")"
    warm_compile="$(awk -v a="$after" -v b="$before" 'BEGIN {printf "%.2f", (a - b) / 1000}')"
    echo "$name: warm-up pass $warm_passes: the agent's JIT compilers spent $warm_compile s" >&2
    if awk -v s="$warm_compile" 'BEGIN {exit !(s < 0.5)}' || [ "$warm_passes" -ge "${WARMUP_PASSES:-10}" ]; then
      return 0
    fi
  done
}

# agent_metric PORT NAME: the sum of a counter of the agent on PORT over its tags, from /metrics.
agent_metric() {
  curl -fsS "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 ~ "^"n"({|$)" {s += $NF} END {printf "%.0f", s}'
}

# count N: N as a number, with a K or M suffix allowed (10M).
count() {
  case "$1" in
    *M) echo $(( ${1%M} * 1000000 )) ;;
    *K) echo $(( ${1%K} * 1000 )) ;;
    *) echo "$1" ;;
  esac
}

# used_memory: the sum of used_memory over the servers of start_shards.
used_memory() {
  local p total=0
  for p in "${!ports[@]}"; do
    total=$(( total + $(redis-cli -h "${hosts[$p]}" -p "${ports[$p]}" info memory \
      | awk -F: '/^used_memory:/ {print $2}' | tr -d '\r') ))
  done
  echo "$total"
}

# field LINE NAME: a number of a JSON line (the first one of that name).
field() { grep -o "\"$2\":[-0-9.]*" <<<"$1" | head -1 | cut -d: -f2; }

# median: of the numbers on stdin, 0 when there are none.
median() { sort -g | awk '{v[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
# ledger_errors FILE: the wrong verdicts (false drops and missed duplicates) over every JSON line of FILE.
ledger_errors() {
  local errors=0 l
  while read -r l; do
    errors=$(( errors + $(field "$l" false_drops) + $(field "$l" missed_duplicates) ))
  done <"$1"
  echo "$errors"
}

# start_agent PORT ARGS...: the agent jar, waited for until /health/ready answers.
start_agent() {
  local port=$1
  shift
  # shellcheck disable=SC2086
  "${AGENT_JAVA:-java}" ${AGENT_JAVA_OPTS:-} -jar "$agent_jar" --port "$port" "$@" >"$work/agent-$port.log" 2>&1 &
  local pid=$!
  pids+=($pid)
  for _ in $(seq 1 300); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "$name: the agent exited during start:" >&2
      cat "$work/agent-$port.log" >&2
      exit 1
    fi
    curl -fsS "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "$name: the agent was not ready after 30 s" >&2
  cat "$work/agent-$port.log" >&2
  exit 1
}

# run_load ARGS...: the load generator; its table goes to stderr, its JSON lines are collected in lines.
run_load() {
  local out rc=0
  # shellcheck disable=SC2086
  out="$(java ${LOADTEST_JAVA_OPTS:-} -jar "$loadtest_jar" --output json --quiet "$@")" || rc=$?
  printf '%s\n' "$out" | grep -v '^{' >&2
  while IFS= read -r line; do lines+=("$line"); done < <(printf '%s\n' "$out" | grep '^{' || true)
  if [ "$rc" -ne 0 ]; then
    echo "$name: load generator exited $rc for: $*" >&2
    status=$rc
  fi
}
