#!/bin/sh
# The Job dedup-redis-cluster: makes the StatefulSet's PODS pods one Redis Cluster of PODS / 2 masters with
# one replica each. Safe to run again at any time:
#
# - It waits until every pod answers (the Job's pods may start before them), up to WAIT_SECONDS.
# - No pod in a cluster yet: `redis-cli --cluster create ... --cluster-replicas 1`.
# - Every pod in the cluster: nothing to do.
# - A formed cluster and new, empty pods (the count was raised): they join as masters until there are
#   PODS / 2, the rest as replicas of the masters that have none; then `redis-cli --cluster rebalance
#   --cluster-use-empty-masters` moves slots to the masters that have none (the agents follow the slots:
#   docs/redis.md#redis-cluster). A run stopped half way is finished by the next.
# - More nodes in the cluster than pods (the count was lowered): it changes nothing and fails, saying so.
#   A node's slots must be moved away before its pod is removed (docs/redis-on-kubernetes.md#redis-cluster).
#
# It ends once `redis-cli --cluster check` finds every slot served and every node agreeing, and fails
# otherwise, so that the Job retries and its status says whether the cluster is whole. It never resets,
# flushes or forgets a node.
set -eu

: "${PODS:?the pod count: the annotation dedup.dev/pods, which kustomize sets from replicas}"
: "${ADMIN_PASSWORD:?from the Secret dedup-redis-tier, key admin-password}"
: "${POD_HOST:?the name of pod i, a printf format: dedup-redis-cluster-%d.dedup-redis-cluster}"
REDIS_PORT=${REDIS_PORT:-6379}
WAIT_SECONDS=${WAIT_SECONDS:-900}
# redis-cli takes the password from the environment: never an argument, which a process list shows
export REDISCLI_AUTH="$ADMIN_PASSWORD"

say() { echo "bootstrap-cluster: $(date +%T) $*"; }
fail() {
  say "$*" >&2
  exit 1
}
cli() { redis-cli --user admin "$@"; }
# cli_at HOST:PORT COMMAND...: a command to one node (the address may be IPv6: the port is after the last colon)
cli_at() {
  at=$1
  shift
  cli -h "${at%:*}" -p "${at##*:}" "$@"
}
info_field() { cli_at "$1" CLUSTER INFO | tr -d '\r' | sed -n "s/^$2://p"; }

case "$PODS" in
  '' | *[!0-9]*) fail "PODS='$PODS' is not a count of pods" ;;
esac
if [ "$PODS" -lt 6 ] || [ $((PODS % 2)) -ne 0 ]; then
  fail "$PODS pods: a cluster needs an even count (a master and its replica per shard) of at least 6 (3 shards)"
fi

# The pods' addresses, once all answer. redis-cli --cluster wants addresses, not names.
deadline=$(($(date +%s) + WAIT_SECONDS))
while :; do
  addresses=
  missing=
  i=0
  while [ "$i" -lt "$PODS" ]; do
    host=$(printf "$POD_HOST" "$i")
    ip=$(getent ahosts "$host" | awk '{ print $1; exit }' || true)
    if [ -n "$ip" ] && [ "$(cli_at "$ip:$REDIS_PORT" PING 2>/dev/null)" = PONG ]; then
      addresses="$addresses $ip:$REDIS_PORT"
    else
      missing="$missing $host"
    fi
    i=$((i + 1))
  done
  [ -z "$missing" ] && break
  [ "$(date +%s)" -ge "$deadline" ] && fail "not answering after ${WAIT_SECONDS}s:$missing"
  say "waiting for$missing"
  sleep 2
done
say "$PODS pods answer:$addresses"

# A node alone knows only itself and serves no slot; a member of the cluster knows others or has slots.
fresh=
members=
for a in $addresses; do
  if [ "$(info_field "$a" cluster_known_nodes)" = 1 ] && [ "$(info_field "$a" cluster_slots_assigned)" = 0 ]; then
    fresh="$fresh $a"
  else
    members="$members $a"
  fi
done

# Until the nodes at these addresses know each other and agree on who is a master, and whose replica
# (the nodes spread a change by gossip, within seconds): redis-cli acts on what one node says. Failed nodes
# (a pod that came back without its volume is a new node; its old id stays listed as failed) do not count.
await_agreement() {
  end=$(($(date +%s) + 120))
  # shellcheck disable=SC2086 # the addresses, counted
  n=$(echo $1 | wc -w)
  while :; do
    views=
    for a in $1; do
      view=$(cli_at "$a" CLUSTER NODES | tr -d '\r' \
        | awk '$3 !~ /fail|handshake|noaddr/ { sub(/myself,/, "", $3); print $1, $3, $4 }' | sort)
      if [ "$(echo "$view" | wc -l)" -ne "$n" ]; then
        views="$views differ"
      fi
      views="$views $(echo "$view" | cksum | tr ' ' -)"
    done
    # shellcheck disable=SC2086
    [ "$(printf '%s\n' $views | sort -u | wc -l)" -eq 1 ] && return 0
    [ "$(date +%s)" -ge "$end" ] && fail "the nodes do not agree on the cluster: $(cli_at "${1%% *}" CLUSTER NODES)"
    sleep 1
  done
}

# Until every slot is served and no slot is half-moved, as redis-cli checks it.
await_check() {
  end=$(($(date +%s) + 120))
  until out=$(cli --cluster check "$1" 2>&1); do
    [ "$(date +%s)" -ge "$end" ] && fail "the cluster is not whole: $out"
    sleep 1
  done
  echo "$out" | tail -n 4
}

if [ -z "$members" ]; then
  say "no cluster yet: creating one of $((PODS / 2)) masters with a replica each"
  # shellcheck disable=SC2086 # one argument an address
  cli --cluster create $addresses --cluster-replicas 1 --cluster-yes
  await_agreement "$addresses"
  first=${addresses# }
  await_check "${first%% *}"
  say "created"
  exit 0
fi

entry=$(echo "$members" | awk '{ print $1 }')
# The cluster as the entry node sees it, a line a node: <id> <address> <flags> <master id> <ping> <pong>
# <epoch> <link> [slot ranges...]. Failed nodes are left out.
nodes() { cli_at "$entry" CLUSTER NODES | tr -d '\r' | awk '$3 !~ /fail/'; }
known=$(nodes | wc -l)
if [ "$known" -gt "$PODS" ]; then
  fail "the cluster has $known nodes and the StatefulSet $PODS pods: a lowered count; nothing changed"
fi

# New pods join as masters until there are PODS / 2, the rest as replicas of the masters that have none.
masters=$(nodes | awk '$3 ~ /master/' | wc -l)
added=
replicas=
for a in $fresh; do
  if [ "$masters" -lt $((PODS / 2)) ]; then
    say "$a joins as a master"
    cli --cluster add-node "$a" "$entry"
    masters=$((masters + 1))
    added="$added $a"
  else
    replicas="$replicas $a"
  fi
done
await_agreement "$members$added"
if [ -n "$replicas" ]; then
  alone=$(nodes | awk '{ id[NR] = $1; flags[NR] = $3; has[$4]++ }
    END { for (i = 1; i <= NR; i++) if (flags[i] ~ /master/ && !has[id[i]]) print id[i] }')
  i=1
  for a in $replicas; do
    master=$(echo "$alone" | sed -n "${i}p")
    [ -z "$master" ] && fail "no master without a replica left for $a"
    say "$a joins as the replica of $master"
    cli --cluster add-node "$a" "$entry" --cluster-slave --cluster-master-id "$master"
    i=$((i + 1))
  done
fi
await_agreement "$addresses"

# A master without slots (just added, or added by a run that stopped before this) gets its share.
if [ -n "$(nodes | awk '$3 ~ /master/ && NF <= 8')" ]; then
  say "moving slots to the masters that have none"
  cli --cluster rebalance "$entry" --cluster-use-empty-masters
  await_agreement "$addresses"
fi
await_check "$entry"
if [ -z "$fresh" ]; then
  say "every pod is a node of the cluster"
else
  say "added$fresh"
fi
