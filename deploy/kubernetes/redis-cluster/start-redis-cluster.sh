#!/bin/sh
# Starts the redis-server of one dedup-redis-cluster pod: a node of the Redis Cluster that the Job
# dedup-redis-cluster forms (bootstrap-cluster.sh).
#
# 1. Writes the ACL file from the Secret's passwords (environment variables, never arguments, so that no
#    password shows in a process list), in memory (an emptyDir), mode 0600: the default user is off
#    (nobody logs in as it) yet allowed everything, which Redis needs to replay the AOF (redis.conf says
#    why); the agent's user reaches only its keys (~dd*) and channel (&dd:*) with only the commands the
#    agent sends (docs/redis.md lists them); the replica user gets what replication needs; the admin user
#    (the Job, an operator's `redis-cli --cluster`) everything.
# 2. Copies redis.conf (read-only, from the ConfigMap) to a writable file and appends this pod's port,
#    directory, memory limit, replication credentials and cluster settings. The node's identity and what
#    it knows of the cluster are in nodes.conf on the volume, so a restarted pod is the same node.
# 3. Gives the other nodes in nodes.conf their current addresses, resolved from the stable names they
#    announce: pods rescheduled together (a node pool replaced, a zone restarted) all come back with new
#    addresses, and nodes that only knew the old ones would not find each other again. A node whose name
#    does not resolve yet keeps its old address; it learns this one's when it starts.
set -eu
umask 077

: "${DEDUP_PASSWORD:?from the Secret dedup-redis-tier, key agent-password}"
: "${REPLICATION_PASSWORD:?from the Secret dedup-redis-tier, key replication-password}"
: "${ADMIN_PASSWORD:?from the Secret dedup-redis-tier, key admin-password}"
: "${ANNOUNCE_HOST:?the stable name of this pod, e.g. dedup-redis-cluster-0.dedup-redis-cluster}"
REDIS_PORT=${REDIS_PORT:-6379}
CLUSTER_BUS_PORT=${CLUSTER_BUS_PORT:-16379}
CONF_DIR=${CONF_DIR:-/etc/dedup-redis}
RUN_DIR=${RUN_DIR:-/run/dedup-redis}
DATA_DIR=${DATA_DIR:-/data}

# The commands the agent sends: its scripts (EVALSHA, EVAL, SCRIPT LOAD), what they call, its release
# channel, PING, WAIT, INFO and CONFIG GET, and what Lettuce follows the cluster with (CLUSTER NODES, and
# ASKING before a command to a slot being moved).
agent="resetchannels ~dd* &dd:* -@all +evalsha +eval +script|load +get +set +getrange +setrange +append +del +hget +hset +hmget +hincrby +sadd +smembers +publish +subscribe +ping +wait +info +config|get +cluster|nodes +asking"
# Lettuce names itself with CLIENT SETINFO on Redis 7.2 and later; older servers refuse a rule naming it.
case "$(redis-server --version)" in
  *" v=6."* | *" v=7.0."* | *" v=7.1."*) ;;
  *) agent="$agent +client|setinfo" ;;
esac

mkdir -p "$RUN_DIR"
cat > "$RUN_DIR/users.acl" <<ACL
user default off ~* &* +@all
user dedup on >$DEDUP_PASSWORD $agent
user replica on >$REPLICATION_PASSWORD +psync +replconf +ping
user admin on >$ADMIN_PASSWORD ~* &* +@all
ACL

conf=$RUN_DIR/redis.conf
grep -v -E '^(port|dir|aclfile) ' "$CONF_DIR/redis.conf" > "$conf"
{
  echo "port $REDIS_PORT"
  echo "dir $DATA_DIR"
  echo "aclfile $RUN_DIR/users.acl"
  echo "masteruser replica"
  echo "masterauth $REPLICATION_PASSWORD"
  echo "cluster-enabled yes"
  echo "cluster-config-file $DATA_DIR/nodes.conf"
  echo "cluster-port $CLUSTER_BUS_PORT"
  # The name is what a restarting peer resolves (step 3); the address, this pod's own, is what clients and
  # peers connect to: the agents follow the cluster by address, as Redis reports it by default.
  echo "cluster-announce-hostname $ANNOUNCE_HOST"
  if [ -n "${POD_IP:-}" ]; then echo "cluster-announce-ip $POD_IP"; fi
  if [ -n "${REDIS_BIND:-}" ]; then echo "bind $REDIS_BIND"; fi
  # 70 % of the container's memory limit: room for the AOF rewrite's copy-on-write and replication buffers.
  if [ -n "${MEMORY_LIMIT_BYTES:-}" ] && [ "$MEMORY_LIMIT_BYTES" -gt 0 ] 2>/dev/null; then
    echo "maxmemory $((MEMORY_LIMIT_BYTES * 7 / 10))"
  fi
} >> "$conf"

# nodes.conf: "<id> <ip>:<port>@<bus port>,<hostname>[,<aux>...] <flags> ..." a line a node, then "vars ...".
nodes=$DATA_DIR/nodes.conf
if [ -s "$nodes" ]; then
  moved=0
  while read -r id address rest; do
    host=$(echo "$address" | cut -s -d, -f2)
    flags=${rest%% *}
    ip=
    # not this node (its address is POD_IP), nor the "vars" line
    if [ -n "$host" ] && [ "$id" != vars ] && [ "${flags#*myself}" = "$flags" ]; then
      ip=$(getent ahosts "$host" | awk '{ print $1; exit }' || true)
    fi
    old=${address%%@*}
    old=${old%:*}
    if [ -n "$ip" ] && [ "$ip" != "$old" ]; then
      port=${address%%@*}
      port=${port##*:}
      echo "start-redis-cluster: $host is now at $ip (was $old)" >&2
      address="$ip:$port@${address#*@}"
      moved=$((moved + 1))
    fi
    echo "$id $address $rest"
  done < "$nodes" > "$nodes.resolved"
  if [ "$moved" -gt 0 ]; then
    mv "$nodes.resolved" "$nodes"
  else
    rm -f "$nodes.resolved"
  fi
  echo "start-redis-cluster: a node of the cluster in $nodes"
else
  echo "start-redis-cluster: a new node, until the Job dedup-redis-cluster joins it"
fi
exec redis-server "$conf"
