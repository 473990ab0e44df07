#!/bin/sh
# Starts the redis-server of one dedup-redis pod.
#
# 1. Writes the ACL file from the Secret's passwords (environment variables, never arguments, so that no
#    password shows in a process list), in memory (an emptyDir), mode 0600: the default user is off
#    (nobody logs in as it) yet allowed everything, which Redis needs to replay the AOF (redis.conf says
#    why); the agent's user reaches only its keys (~dd*) and channel (&dd:*) with only the commands the
#    agent sends (docs/redis.md lists them); the replica and sentinel users get what replication and
#    failover need; the admin user (an operator's redis-cli) everything.
# 2. Copies redis.conf (read-only, from the ConfigMap) to a writable file and appends this pod's port,
#    directory, memory limit and replication credentials: Sentinel rewrites that file on failover.
# 3. Finds the primary: what a reachable sentinel says, else what this pod's sentinel last recorded on
#    the volume, else the first pod (a new set). This pod replicates it unless it is the primary.
set -eu
umask 077

: "${DEDUP_PASSWORD:?from the Secret dedup-redis-tier, key agent-password}"
: "${REPLICATION_PASSWORD:?from the Secret dedup-redis-tier, key replication-password}"
: "${SENTINEL_PASSWORD:?from the Secret dedup-redis-tier, key sentinel-password}"
: "${ADMIN_PASSWORD:?from the Secret dedup-redis-tier, key admin-password}"
: "${ANNOUNCE_HOST:?the stable name of this pod, e.g. dedup-redis-0.dedup-redis}"
: "${BOOTSTRAP_PRIMARY:?host:port of the first pod}"
REDIS_PORT=${REDIS_PORT:-6379}
MASTER_NAME=${MASTER_NAME:-dedup}
SENTINELS=${SENTINELS:-}
CONF_DIR=${CONF_DIR:-/etc/dedup-redis}
RUN_DIR=${RUN_DIR:-/run/dedup-redis}
DATA_DIR=${DATA_DIR:-/data}

# The commands the agent sends: its scripts (EVALSHA, EVAL, SCRIPT LOAD), what they call, its release
# channel, PING, WAIT, INFO and CONFIG GET, and a Redis Cluster's topology (harmless here).
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
user sentinel on >$SENTINEL_PASSWORD allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill
user admin on >$ADMIN_PASSWORD ~* &* +@all
ACL

conf=$RUN_DIR/redis.conf
grep -v -E '^(port|dir|aclfile) ' "$CONF_DIR/redis.conf" > "$conf"
{
  echo "port $REDIS_PORT"
  echo "dir $DATA_DIR"
  echo "aclfile $RUN_DIR/users.acl"
  echo "replica-announce-ip $ANNOUNCE_HOST"
  echo "replica-announce-port $REDIS_PORT"
  echo "masteruser replica"
  echo "masterauth $REPLICATION_PASSWORD"
  if [ -n "${REDIS_BIND:-}" ]; then echo "bind $REDIS_BIND"; fi
  # 70 % of the container's memory limit: room for the AOF rewrite's copy-on-write and replication buffers.
  if [ -n "${MEMORY_LIMIT_BYTES:-}" ] && [ "$MEMORY_LIMIT_BYTES" -gt 0 ] 2>/dev/null; then
    echo "maxmemory $((MEMORY_LIMIT_BYTES * 7 / 10))"
  fi
} >> "$conf"

# The sentinels are asked as the agent's user, which they let ask this and nothing that changes them;
# redis-cli takes the password from the environment, never an argument.
primary=
for s in $(echo "$SENTINELS" | tr ',' ' '); do
  answer=$(REDISCLI_AUTH="$DEDUP_PASSWORD" redis-cli -h "${s%:*}" -p "${s##*:}" --user dedup --raw SENTINEL get-master-addr-by-name "$MASTER_NAME" 2>/dev/null || true)
  if [ "$(echo "$answer" | wc -l)" -eq 2 ]; then
    primary=$(echo "$answer" | tr '\n' ':' | sed 's/:$//')
    break
  fi
done
if [ -z "$primary" ] && [ -f "$DATA_DIR/sentinel.conf" ]; then
  primary=$(awk -v m="$MASTER_NAME" '$1 == "sentinel" && $2 == "monitor" && $3 == m { print $4 ":" $5 }' "$DATA_DIR/sentinel.conf")
fi
primary=${primary:-$BOOTSTRAP_PRIMARY}

if [ "$primary" != "$ANNOUNCE_HOST:$REDIS_PORT" ]; then
  echo "replicaof ${primary%:*} ${primary##*:}" >> "$conf"
  echo "start-redis: replica of $primary"
else
  echo "start-redis: primary"
fi
exec redis-server "$conf"
