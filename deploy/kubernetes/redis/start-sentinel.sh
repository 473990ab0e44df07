#!/bin/sh
# Starts the sentinel of one dedup-redis pod. Its configuration lives on the pod's volume, so that what it
# learnt (the current primary after a failover, the other sentinels) survives a restart of the whole set;
# a new volume starts monitoring the primary that a reachable sentinel names, else the first pod.
set -eu
umask 077

: "${SENTINEL_PASSWORD:?from the Secret dedup-redis, key sentinel-password}"
: "${ANNOUNCE_HOST:?the stable name of this pod, e.g. dedup-redis-0.dedup-redis}"
: "${BOOTSTRAP_PRIMARY:?host:port of the first pod}"
SENTINEL_PORT=${SENTINEL_PORT:-26379}
MASTER_NAME=${MASTER_NAME:-dedup}
SENTINELS=${SENTINELS:-}
QUORUM=${QUORUM:-2}
DATA_DIR=${DATA_DIR:-/data}
conf=$DATA_DIR/sentinel.conf

if [ ! -s "$conf" ]; then
  primary=
  for s in $(echo "$SENTINELS" | tr ',' ' '); do
    [ "$s" = "$ANNOUNCE_HOST:$SENTINEL_PORT" ] && continue
    answer=$(redis-cli -h "${s%:*}" -p "${s##*:}" --raw SENTINEL get-master-addr-by-name "$MASTER_NAME" 2>/dev/null || true)
    if [ "$(echo "$answer" | wc -l)" -eq 2 ]; then
      primary=$(echo "$answer" | tr '\n' ':' | sed 's/:$//')
      break
    fi
  done
  primary=${primary:-$BOOTSTRAP_PRIMARY}
  cat > "$conf" <<CONF
port $SENTINEL_PORT
sentinel resolve-hostnames yes
sentinel announce-hostnames yes
sentinel announce-ip $ANNOUNCE_HOST
sentinel announce-port $SENTINEL_PORT
sentinel monitor $MASTER_NAME ${primary%:*} ${primary##*:} $QUORUM
sentinel down-after-milliseconds $MASTER_NAME 5000
sentinel failover-timeout $MASTER_NAME 60000
sentinel parallel-syncs $MASTER_NAME 1
CONF
fi
# The password may have been rotated since the file was written: set it again.
sed -i "/^sentinel auth-user $MASTER_NAME /d; /^sentinel auth-pass $MASTER_NAME /d" "$conf"
{
  echo "sentinel auth-user $MASTER_NAME sentinel"
  echo "sentinel auth-pass $MASTER_NAME $SENTINEL_PASSWORD"
  if [ -n "${SENTINEL_BIND:-}" ]; then echo "bind $SENTINEL_BIND"; fi
} >> "$conf"
exec redis-server "$conf" --sentinel
