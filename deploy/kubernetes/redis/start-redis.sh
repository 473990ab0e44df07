#!/bin/sh
# Starts the redis-server of one dedup-redis pod.
#
# 1. Writes the ACL file from the Secret's passwords (environment variables, never arguments, so that no
#    password shows in a process list), in memory (an emptyDir), mode 0600: the default user is off
#    (nobody logs in as it) yet allowed everything, which Redis needs to replay the AOF (redis.conf says
#    why); the agent's user reaches only its keys (~dd*) and channel (&dd:*) and no @dangerous command but
#    CONFIG GET and INFO (its eviction check and memory gauges); the replica and sentinel users get what
#    replication and failover need.
# 2. Copies redis.conf (read-only, from the ConfigMap) to a writable file and appends this pod's port,
#    directory, memory limit and replication credentials: Sentinel rewrites that file on failover.
# 3. Finds the primary: what a reachable sentinel says, else what this pod's sentinel last recorded on
#    the volume, else the first pod (a new set). This pod replicates it unless it is the primary.
set -eu
umask 077

: "${DEDUP_PASSWORD:?from the Secret dedup-redis, key password}"
: "${REPLICATION_PASSWORD:?from the Secret dedup-redis, key replication-password}"
: "${SENTINEL_PASSWORD:?from the Secret dedup-redis, key sentinel-password}"
: "${ANNOUNCE_HOST:?the stable name of this pod, e.g. dedup-redis-0.dedup-redis}"
: "${BOOTSTRAP_PRIMARY:?host:port of the first pod}"
REDIS_PORT=${REDIS_PORT:-6379}
MASTER_NAME=${MASTER_NAME:-dedup}
SENTINELS=${SENTINELS:-}
CONF_DIR=${CONF_DIR:-/etc/dedup-redis}
RUN_DIR=${RUN_DIR:-/run/dedup-redis}
DATA_DIR=${DATA_DIR:-/data}

mkdir -p "$RUN_DIR"
cat > "$RUN_DIR/users.acl" <<ACL
user default off ~* &* +@all
user dedup on >$DEDUP_PASSWORD resetchannels ~dd* &dd:* +@all -@dangerous +config|get +info
user replica on >$REPLICATION_PASSWORD +psync +replconf +ping
user sentinel on >$SENTINEL_PASSWORD allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill
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

primary=
for s in $(echo "$SENTINELS" | tr ',' ' '); do
  answer=$(redis-cli -h "${s%:*}" -p "${s##*:}" --raw SENTINEL get-master-addr-by-name "$MASTER_NAME" 2>/dev/null || true)
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
