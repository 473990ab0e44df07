#!/usr/bin/env bash
# Throughput of one agent on the embedded store, end to end over HTTP on loopback.
#
# Builds nothing: run `mvn -B -DskipTests package` first. Starts agent/target/dedup-agent.jar on a free
# port with a fresh data directory, waits until /health/ready answers, then runs the load generator
# (`--scenario all`: cold, retry, duplicate over the same ids) with 2,000,000 ids for batches of 1000 and
# 10000 in the binary format and once in JSON, and prints the JSON line of every scenario. Every process
# is stopped and the data directory removed however the script ends.
#
# Environment: IDS (default 2000000), WORKERS (default 4), WARMUP (ids sent first and not measured,
# default 200000), SLOTS (default 67108864), AGENT_JAVA_OPTS and LOADTEST_JAVA_OPTS (extra JVM flags).
# Note that the generator and the agent share this machine's cores.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
name=bench-embedded
work="$(mktemp -d "${TMPDIR:-/tmp}/dedup-bench.XXXXXX")"
# shellcheck source=bench-lib.sh
. "$root/loadtest/bench-lib.sh"
trap cleanup EXIT
trap 'exit 130' INT TERM

ids="${IDS:-2000000}"
workers="${WORKERS:-4}"
warmup="${WARMUP:-200000}"
# 64 Mi slots (a 1 GiB file) hold the 3 × 2M ids of the three runs without forgetting any: with the
# default 16 Mi slots a few ids in 100,000 would be forgotten by capacity (docs/embedded-store.md, "Sizing") and the
# ledger would count them as missed duplicates.
slots="${SLOTS:-67108864}"
require_jars

port="$(free_port)"
start_agent "$port" --data-dir "$work/data" --embedded-slots "$slots"
echo "$name: agent on port $port, data in $work, $(nproc) cores" >&2

common=(--target "http://127.0.0.1:$port" --scenario all --ids "$ids" --workers "$workers" --warmup "$warmup")
run_load "${common[@]}" --binary --batch 1000
run_load "${common[@]}" --binary --batch 10000
run_load "${common[@]}" --json --batch 1000

printf '%s\n' "${lines[@]}"
exit "$status"
