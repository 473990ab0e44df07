#!/usr/bin/env bash
# Throughput of the Redis tier on a Redis Cluster against the same number of standalone shards, in one
# run: three redis-server shards, and a cluster of three masters (no replicas, so that both setups run the
# same servers on this machine's cores), each behind its own agent with the near-cache off, so that every
# id of every scenario is decided by a script call. The generator runs `--scenario all` (cold, retry,
# duplicate over IDS ids) against each setup in turn, ROUNDS times, alternating, so that a busy moment of
# the shared machine does not favour one; compare the medians.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Every process is stopped by its PID however the
# script ends.
#
# Environment: IDS (default 300000), WORKERS (default 4), BATCH (default 1000), ROUNDS (default 3),
# CLUSTER_GROUPS (--redis-cluster-groups to compare, default "32"), AGENT_JAVA_OPTS, LOADTEST_JAVA_OPTS.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-redis-cluster
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

ids="${IDS:-300000}"
workers="${WORKERS:-4}"
batch="${BATCH:-1000}"
rounds="${ROUNDS:-3}"
require_jars
command -v redis-cli >/dev/null || { echo "$name: redis-cli is not installed" >&2; exit 2; }

start_shards 3
standalone_port="$(free_port)"
start_agent "$standalone_port" --redis "$shards" --near-cache-size 0

nodes=()
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
declare -A cluster_ports
for g in ${CLUSTER_GROUPS:-32}; do
  cluster_ports[$g]="$(free_port)"
  start_agent "${cluster_ports[$g]}" --redis "$cluster_uri" --redis-cluster-groups "$g" --redis-prefix "g$g" \
    --near-cache-size 0
done
echo "$name: standalone agent on $standalone_port (${uris[*]}), cluster agents on ${cluster_ports[*]} ($cluster_uri)," \
  "$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" >&2

common=(--scenario all --ids "$ids" --workers "$workers" --batch "$batch" --binary)
for round in $(seq 1 "$rounds"); do
  echo "$name: round $round: standalone" >&2
  run_load --target "http://127.0.0.1:$standalone_port" "${common[@]}"
  lines+=("round=$round setup=standalone-3")
  for g in ${CLUSTER_GROUPS:-32}; do
    echo "$name: round $round: cluster, $g groups" >&2
    run_load --target "http://127.0.0.1:${cluster_ports[$g]}" "${common[@]}"
    lines+=("round=$round setup=cluster-3-groups-$g")
  done
done

printf '%s\n' "${lines[@]}"
exit "$status"
