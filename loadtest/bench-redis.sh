#!/usr/bin/env bash
# Throughput of one agent on three local Redis shards, end to end over HTTP on loopback, and the share
# of answers the near-cache gave.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Starts three redis-server processes (nothing
# persisted, noeviction) and agent/target/dedup-agent.jar with --redis on free ports, then runs the load
# generator (`--scenario all`: cold, retry, duplicate over the same 2,000,000 ids) for batches of 10000
# and 1000 (BATCHES), prints the near-cache counters of /v1/stats after each, and the JSON line of every
# scenario. Every process is stopped by its PID however the script ends.
#
# Environment: IDS (default 2000000), WORKERS (default 4), WARMUP (default 200000), NEAR_CACHE (entries,
# default 4194304 so that the retry pass can be served from it; 0 turns it off), BATCHES (default
# "10000 1000"), REDIS_SERVER (default redis-server; valkey-server for Valkey), AGENT_ARGS (more agent
# flags), AGENT_JAVA_OPTS,
# LOADTEST_JAVA_OPTS. The three shards, the agent and the generator share this machine's cores.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-redis
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

ids="${IDS:-2000000}"
workers="${WORKERS:-4}"
warmup="${WARMUP:-200000}"
near_cache="${NEAR_CACHE:-4194304}"
require_jars
start_shards 3
port="$(free_port)"
# shellcheck disable=SC2086
start_agent "$port" --redis "$shards" --near-cache-size "$near_cache" ${AGENT_ARGS:-}
echo "$name: agent on port $port, shards ${uris[*]}, $(nproc) cores" >&2

near_cache_stats() {
  curl -fsS "http://127.0.0.1:$port/v1/stats" | tr -d ' \n' | grep -o '"near_cache":{[^}]*}' >&2 || true
}

common=(--target "http://127.0.0.1:$port" --scenario all --ids "$ids" --workers "$workers" --warmup "$warmup")
for batch in ${BATCHES:-10000 1000}; do
  run_load "${common[@]}" --binary --batch "$batch"
  near_cache_stats
done

printf '%s\n' "${lines[@]}"
exit "$status"
