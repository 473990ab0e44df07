#!/bin/sh
# Starts the sentinel of one dedup-redis pod. Its configuration lives on the pod's volume, so that what it
# learnt (the current primary after a failover, the other sentinels) survives a restart of the whole set;
# a new volume starts monitoring the primary that a reachable sentinel names, else the first pod.
#
# Every start writes the sentinel's users and logins again from the Secret (passwords may have been
# rotated): the default user is off, so nobody who merely reaches the port can name a primary or change
# what is watched; the agents' user (the password of their URI) may only ask where the primary is; the
# sentinels log in to each other as `sentinel` (hellos, pings, failover votes) and to the Redis servers
# as `sentinel` too (sentinel auth-user); `admin` (an operator's redis-cli: SENTINEL FAILOVER, RESET...)
# may do everything.
set -eu
umask 077

: "${DEDUP_PASSWORD:?from the Secret dedup-redis-tier, key agent-password}"
: "${SENTINEL_PASSWORD:?from the Secret dedup-redis-tier, key sentinel-password}"
: "${ADMIN_PASSWORD:?from the Secret dedup-redis-tier, key admin-password}"
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
    answer=$(REDISCLI_AUTH="$DEDUP_PASSWORD" redis-cli -h "${s%:*}" -p "${s##*:}" --user dedup --raw SENTINEL get-master-addr-by-name "$MASTER_NAME" 2>/dev/null || true)
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
# What the agents may ask: where the primary is (SENTINEL MASTER, and get-master-addr-by-name for the start
# scripts); CLIENT SETINFO, with which Lettuce names itself, on Redis 7.2 and later (older ones refuse it).
agent="resetchannels -@all +sentinel|master +sentinel|get-master-addr-by-name +ping"
case "$(redis-server --version)" in
  *" v=6."* | *" v=7.0."* | *" v=7.1."*) ;;
  *) agent="$agent +client|setinfo" ;;
esac
# Users and passwords, written again: the file holds what the sentinel last rewrote (passwords hashed).
sed -i "/^user /d; /^sentinel auth-user $MASTER_NAME /d; /^sentinel auth-pass $MASTER_NAME /d; /^sentinel sentinel-user /d; /^sentinel sentinel-pass /d; /^bind /d" "$conf"
{
  echo "user default off"
  echo "user admin on >$ADMIN_PASSWORD allchannels +@all"
  echo "user dedup on >$DEDUP_PASSWORD $agent"
  echo "user sentinel on >$SENTINEL_PASSWORD resetchannels &__sentinel__:hello -@all +ping +publish +client|setname +sentinel|is-master-down-by-addr"
  echo "sentinel auth-user $MASTER_NAME sentinel"
  echo "sentinel auth-pass $MASTER_NAME $SENTINEL_PASSWORD"
  echo "sentinel sentinel-user sentinel"
  echo "sentinel sentinel-pass $SENTINEL_PASSWORD"
  if [ -n "${SENTINEL_BIND:-}" ]; then echo "bind $SENTINEL_BIND"; fi
} >> "$conf"
exec redis-server "$conf" --sentinel
