#!/usr/bin/env bash
# The high-availability rig: PostgreSQL 15 x3 under Patroni (etcd as the DCS, synchronous_mode), HAProxy routing one
# port to whichever node answers Patroni's GET /primary, and Redis (a master, a replica, three Sentinels), all on
# free loopback ports, in one folder of its own, every process tracked by its pid. docs/high-availability.md
# describes it.
#
#   ha/rig.sh install                install what is missing (Debian packages; no service is started)
#   ha/rig.sh start [DIR]            install what is missing, start, wait until healthy
#   ha/rig.sh stop [DIR]             kill exactly the rig's own pids, remove DIR
#   ha/rig.sh status [DIR]           roles and ports
#   ha/rig.sh env [DIR]              the service's environment for this rig (KEY=value lines)
#   ha/rig.sh wait-healthy [DIR]     wait (bounded) for a leader, a sync standby, HAProxy and Sentinel agreeing
#   ha/rig.sh kill-primary [DIR]     kill -9 the leader's Patroni and its postgres processes; prints the node
#   ha/rig.sh switchover [DIR]       patronictl switchover to the synchronous standby; prints the new leader
#   ha/rig.sh kill-redis-master [DIR] kill -9 the Redis master Sentinel names; prints its port
#   ha/rig.sh heal [DIR]             restart what was killed (it rejoins as a replica) and wait until healthy
#
# DIR defaults to $HA_RIG_DIR, else target/ha-rig. Nothing outside DIR (and its etcd data folder under /dev/shm) is
# written; the machine's own PostgreSQL (5432), Redis (6379) and system services are never touched.
set -euo pipefail

PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
MASTER_NAME=orderflow
DB_NAME=orderflow
# Patroni: loop_wait + 2 x retry_timeout <= ttl (2 + 2 x 4 = 10 <= 12). The leader refreshes its lock every 2 s and
# survives a stall of about 10 s (CPU starvation, a slow etcd answer) before anyone may take over; failsafe_mode keeps
# it primary through an etcd outage while it still reaches every member. A killed leader is replaced once its lock
# expires: 10-12 s after the kill, plus promotion and HAProxy's check.
PATRONI_TTL=${PATRONI_TTL:-12}
PATRONI_LOOP_WAIT=${PATRONI_LOOP_WAIT:-2}
PATRONI_RETRY_TIMEOUT=${PATRONI_RETRY_TIMEOUT:-4}
# Sentinel: a master silent for 3 s is subjectively down; two of three Sentinels agreeing make it objectively down.
SENTINEL_DOWN_AFTER_MS=${SENTINEL_DOWN_AFTER_MS:-3000}
HEALTHY_WITHIN=${HEALTHY_WITHIN:-120}

cmd=${1:-}
DIR=${2:-${HA_RIG_DIR:-target/ha-rig}}
mkdir -p "$(dirname "$DIR")"
DIR=$(cd "$(dirname "$DIR")" && pwd)/$(basename "$DIR")

log() { printf '[ha-rig] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }

# ---------------------------------------------------------------------------------------------------------------
# installation: Debian packages, without letting their maintainer scripts start any service

ensure_installed() {
  local missing=()
  command -v patroni >/dev/null 2>&1 || missing+=(patroni)
  /usr/bin/python3 -c 'import etcd' 2>/dev/null || missing+=(python3-etcd)
  command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
  command -v etcdctl >/dev/null 2>&1 || missing+=(etcd-client)
  command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v redis-sentinel >/dev/null 2>&1 || missing+=(redis-sentinel)
  command -v psql >/dev/null 2>&1 || missing+=(postgresql-client-15)
  [ -x "$PG_BIN/postgres" ] || missing+=(postgresql-15)
  command -v setpriv >/dev/null 2>&1 || missing+=(util-linux)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v ps >/dev/null 2>&1 || missing+=(procps)
  [ ${#missing[@]} -eq 0 ] && return
  [ "$(id -u)" -eq 0 ] || die "missing ${missing[*]}: install them (apt-get install -y ${missing[*]}) or run as root"
  log "installing ${missing[*]}"
  # policy-rc.d exit 101 = "do not start services": etcd, haproxy and redis come with units that would otherwise
  # start at install and take the standard ports. Put back exactly what was there before.
  local policy=/usr/sbin/policy-rc.d saved=""
  if [ -e "$policy" ]; then saved=$(mktemp); cp -p "$policy" "$saved"; fi
  printf '#!/bin/sh\nexit 101\n' > "$policy"; chmod 755 "$policy"
  local rc=0
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${missing[@]}" >/dev/null; } || rc=$?
  if [ -n "$saved" ]; then mv "$saved" "$policy"; else rm -f "$policy"; fi
  [ $rc -eq 0 ] || die "apt-get install ${missing[*]} failed"
}

# ---------------------------------------------------------------------------------------------------------------
# bookkeeping: ports.env, one pid file per process

ports_file() { echo "$DIR/ports.env"; }
load_ports() { [ -f "$(ports_file)" ] || die "no rig in $DIR (ha/rig.sh start)"; . "$(ports_file)"; }

free_ports() { # N distinct ports the kernel has free on 127.0.0.1 right now
  /usr/bin/python3 - "$1" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

pid_of() { cat "$DIR/pids/$1.pid" 2>/dev/null || true; }
alive() { local p; p=$(pid_of "$1"); [ -n "$p" ] && kill -0 "$p" 2>/dev/null; }

# Starts a process in the background, its output in logs/NAME.log, its pid in pids/NAME.pid. As root, PostgreSQL's
# processes run as postgres (setpriv execs, so the pid is the program's own).
launch() {
  local name=$1 as=$2; shift 2
  local out="$DIR/logs/$name.log"
  if [ "$as" = postgres ] && [ "$(id -u)" -eq 0 ]; then
    setsid setpriv --reuid=postgres --regid=postgres --init-groups -- "$@" >>"$out" 2>&1 < /dev/null &
  else
    setsid "$@" >>"$out" 2>&1 < /dev/null &
  fi
  echo $! > "$DIR/pids/$name.pid"
}

owner_postgres() { [ "$(id -u)" -eq 0 ] && chown -R postgres:postgres "$@" || true; }

# ---------------------------------------------------------------------------------------------------------------
# configuration

write_configs() {
  read -r ETCD_CLIENT ETCD_PEER PG1 PG2 PG3 REST1 REST2 REST3 HAPROXY REDIS_MASTER REDIS_REPLICA S1 S2 S3 \
    <<<"$(free_ports 14)"
  local id; id=$(printf '%s' "$DIR" | md5sum | cut -c1-10)
  ETCD_DATA=/dev/shm/orderflow-ha-rig-$id
  [ -w /dev/shm ] || ETCD_DATA=$DIR/etcd/data
  cat > "$(ports_file)" <<EOF
# written by ha/rig.sh start; read by the rig's commands and by io.orderflow.support.HaRig
RIG_DIR=$DIR
SCOPE=orderflow-$id
ETCD_CLIENT=$ETCD_CLIENT
ETCD_PEER=$ETCD_PEER
ETCD_DATA=$ETCD_DATA
PG1=$PG1
PG2=$PG2
PG3=$PG3
REST1=$REST1
REST2=$REST2
REST3=$REST3
HAPROXY=$HAPROXY
REDIS_MASTER=$REDIS_MASTER
REDIS_REPLICA=$REDIS_REPLICA
S1=$S1
S2=$S2
S3=$S3
MASTER_NAME=$MASTER_NAME
DB_NAME=$DB_NAME
PATRONI_TTL=$PATRONI_TTL
PATRONI_LOOP_WAIT=$PATRONI_LOOP_WAIT
PATRONI_RETRY_TIMEOUT=$PATRONI_RETRY_TIMEOUT
EOF
  . "$(ports_file)"
  for n in 1 2 3; do write_patroni "$n"; done
  write_haproxy
  for n in 1 2 3; do write_sentinel "$n"; done
}

write_patroni() {
  local n=$1 pg rest
  pg=$(eval echo "\$PG$n"); rest=$(eval echo "\$REST$n")
  local home="$DIR/pg/node$n"
  mkdir -p "$home"
  cat > "$home/patroni.yml" <<EOF
scope: $SCOPE
namespace: /orderflow-ha-rig/
name: node$n
log:
  level: INFO
restapi:
  listen: 127.0.0.1:$rest
  connect_address: 127.0.0.1:$rest
etcd3:
  hosts: 127.0.0.1:$ETCD_CLIENT
bootstrap:
  dcs:
    ttl: $PATRONI_TTL
    loop_wait: $PATRONI_LOOP_WAIT
    retry_timeout: $PATRONI_RETRY_TIMEOUT
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    synchronous_node_count: 1
    failsafe_mode: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        max_connections: 200
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        wal_keep_size: 256MB
        synchronous_commit: "on"
        # the rig kills processes, never the machine: the OS keeps every write, so fsync only costs the shared disk
        fsync: "off"
        full_page_writes: "on"
        client_connection_check_interval: 100ms
        # dynamic shared memory as files in the data folder, so a node killed with -9 leaves nothing in /dev/shm
        dynamic_shared_memory_type: mmap
  initdb:
    - encoding: UTF8
    - locale: C
    - auth: trust
postgresql:
  listen: 127.0.0.1:$pg
  connect_address: 127.0.0.1:$pg
  data_dir: $home/data
  bin_dir: $PG_BIN
  pgpass: $home/pgpass
  # a new replica's base backup asks the primary for a checkpoint: at once, not spread over minutes
  basebackup:
    - checkpoint: fast
  authentication:
    superuser:
      username: postgres
      password: postgres
    replication:
      username: replicator
      password: replicator
    rewind:
      username: postgres
      password: postgres
  parameters:
    unix_socket_directories: $home
  pg_hba:
    - local all all trust
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
watchdog:
  mode: "off"
tags:
  nofailover: false
  noloadbalance: false
  clonefrom: false
EOF
}

write_haproxy() {
  mkdir -p "$DIR/haproxy"
  cat > "$DIR/haproxy/haproxy.cfg" <<EOF
global
  maxconn 2000
  log stdout format raw local0 notice

defaults
  mode tcp
  log global
  option tcplog
  retries 2
  timeout connect 1s
  # pooled connections idle up to the service's pool idle-timeout (10m): HAProxy must not cut them first
  timeout client 30m
  timeout server 30m
  timeout check 2s

# One port, always the primary: the node whose Patroni answers GET /primary with 200. A node marked down has its
# sessions shut, so clients reconnect (to the new primary) instead of writing into a demoted server.
listen primary
  bind 127.0.0.1:$HAPROXY
  option httpchk
  http-check send meth GET uri /primary
  http-check expect status 200
  default-server inter 1s fastinter 250ms downinter 500ms fall 3 rise 1 on-marked-down shutdown-sessions
  server node1 127.0.0.1:$PG1 maxconn 200 check port $REST1
  server node2 127.0.0.1:$PG2 maxconn 200 check port $REST2
  server node3 127.0.0.1:$PG3 maxconn 200 check port $REST3
EOF
}

write_sentinel() {
  local n=$1 port; port=$(eval echo "\$S$n")
  mkdir -p "$DIR/redis/sentinel$n"
  cat > "$DIR/redis/sentinel$n/sentinel.conf" <<EOF
port $port
bind 127.0.0.1
daemonize no
dir $DIR/redis/sentinel$n
sentinel monitor $MASTER_NAME 127.0.0.1 $REDIS_MASTER 2
sentinel down-after-milliseconds $MASTER_NAME $SENTINEL_DOWN_AFTER_MS
sentinel failover-timeout $MASTER_NAME 10000
sentinel parallel-syncs $MASTER_NAME 1
EOF
}

# ---------------------------------------------------------------------------------------------------------------
# processes

start_etcd() {
  mkdir -p "$ETCD_DATA" "$DIR/etcd"
  launch etcd self etcd --name rig --data-dir "$ETCD_DATA" \
    --listen-client-urls "http://127.0.0.1:$ETCD_CLIENT" --advertise-client-urls "http://127.0.0.1:$ETCD_CLIENT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER" \
    --initial-cluster "rig=http://127.0.0.1:$ETCD_PEER" --initial-cluster-state new \
    --listen-metrics-urls "" --log-level warn
  wait_for "etcd answers" 30 etcd_healthy
}

etcd_healthy() { ETCDCTL_API=3 etcdctl --endpoints="127.0.0.1:$ETCD_CLIENT" endpoint health >/dev/null 2>&1; }

start_patroni() {
  local n=$1
  owner_postgres "$DIR/pg/node$n"
  chmod 700 "$DIR/pg/node$n"
  launch "patroni$n" postgres patroni "$DIR/pg/node$n/patroni.yml"
}

start_haproxy() { launch haproxy self haproxy -db -f "$DIR/haproxy/haproxy.cfg"; }

start_redis() {
  local name=$1 port=$2; shift 2
  mkdir -p "$DIR/redis/$name"
  launch "redis-$name" self redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
    --dir "$DIR/redis/$name" --daemonize no "$@"
}

start_sentinel() { launch "sentinel$1" self redis-sentinel "$DIR/redis/sentinel$1/sentinel.conf"; }

# ---------------------------------------------------------------------------------------------------------------
# health

rest_port() { eval echo "\$REST${1#node}"; }
pg_port() { eval echo "\$PG${1#node}"; }

http_code() { curl -s -o /dev/null -m 2 -w '%{http_code}' "$1" 2>/dev/null || true; }

leader() { # the node whose Patroni says it is the primary
  local n
  for n in 1 2 3; do
    [ "$(http_code "http://127.0.0.1:$(eval echo "\$REST$n")/primary")" = 200 ] && { echo "node$n"; return 0; }
  done
  return 1
}

cluster_json() { # Patroni's view of the cluster, from the first REST API that answers
  local n
  for n in 1 2 3; do
    curl -sf -m 2 "http://127.0.0.1:$(eval echo "\$REST$n")/cluster" 2>/dev/null && return 0
  done
  return 1
}

sync_standby() {
  cluster_json | /usr/bin/python3 -c '
import json, sys
c = json.load(sys.stdin)
for m in c.get("members", []):
    if m.get("role") in ("sync_standby",) and m.get("state") in ("running", "streaming"):
        print(m["name"]); break
' 2>/dev/null
}

streaming_replicas() {
  cluster_json | /usr/bin/python3 -c '
import json, sys
c = json.load(sys.stdin)
print(sum(1 for m in c.get("members", []) if m.get("role") in ("replica", "sync_standby") and m.get("state") in ("running", "streaming")))
' 2>/dev/null || echo 0
}

through_haproxy() { # the server behind HAProxy's port writes (it is a primary)
  [ "$(psql -h 127.0.0.1 -p "$HAPROXY" -U postgres -d postgres -XAtq -c 'select pg_is_in_recovery()' 2>/dev/null)" = f ]
}

redis_cli() { redis-cli -h 127.0.0.1 -p "$1" "${@:2}" 2>/dev/null; }

redis_master_port() { redis_cli "$1" SENTINEL get-master-addr-by-name "$MASTER_NAME" | sed -n 2p; }

sentinels_agree() { # every Sentinel names the same master, which has a connected replica and sees two other Sentinels
  local first="" s port
  for s in "$S1" "$S2" "$S3"; do
    port=$(redis_master_port "$s")
    [ -n "$port" ] || return 1
    [ -z "$first" ] && first=$port
    [ "$port" = "$first" ] || return 1
    redis_cli "$s" SENTINEL master "$MASTER_NAME" | tr -d '\r' | awk 'NR%2==1{k=$0;next}{v[k]=$0}
      END{exit !(v["num-other-sentinels"]==2 && v["num-slaves"]>=1 && v["flags"]=="master")}' || return 1
  done
  redis_cli "$first" INFO replication | tr -d '\r' | grep -q '^connected_slaves:[1-9]' || return 1
  redis_cli "$first" INFO replication | tr -d '\r' | grep -q '^slave0:.*state=online' || return 1
}

healthy() {
  leader >/dev/null && [ -n "$(sync_standby)" ] && [ "$(streaming_replicas)" -ge "${WANT_REPLICAS:-2}" ] \
    && through_haproxy && sentinels_agree
}

wait_for() { # what, seconds, command...
  local what=$1 within=$2; shift 2
  local deadline=$((SECONDS + within))
  until "$@"; do
    [ $SECONDS -lt $deadline ] || { log "not within ${within}s: $what"; return 1; }
    sleep 0.5
  done
}

# ---------------------------------------------------------------------------------------------------------------
# commands

all_alive() {
  local name
  for name in etcd patroni1 patroni2 patroni3 haproxy redis-master redis-replica sentinel1 sentinel2 sentinel3; do
    alive "$name" || return 1
  done
}

do_start() {
  ensure_installed
  if [ -f "$(ports_file)" ]; then
    . "$(ports_file)"
    if all_alive && healthy; then
      log "already running in $DIR"
      return 0
    fi
    log "a partial rig is in $DIR: stopping it first"
    do_stop
  fi
  mkdir -p "$DIR/pids" "$DIR/logs"
  local started=$SECONDS
  write_configs
  start_etcd
  # Redis first: it is ready in a second, Sentinel's first checks overlap Patroni's bootstrap
  start_redis master "$REDIS_MASTER"
  start_redis replica "$REDIS_REPLICA" --replicaof 127.0.0.1 "$REDIS_MASTER"
  for n in 1 2 3; do start_sentinel "$n"; done
  start_haproxy
  # node1 bootstraps alone, so it takes the initialize key; the others then clone it
  start_patroni 1
  wait_for "node1 is the primary" 90 leader >/dev/null
  start_patroni 2
  start_patroni 3
  wait_for "HAProxy reaches the primary" 30 through_haproxy
  psql -h 127.0.0.1 -p "$HAPROXY" -U postgres -d postgres -XAtq -c "create database $DB_NAME" >/dev/null
  wait_for "a leader, a synchronous standby, two replicas, Sentinels agreeing" "$HEALTHY_WITHIN" healthy
  log "up in $((SECONDS - started))s: PostgreSQL via HAProxy 127.0.0.1:$HAPROXY, Sentinels $S1 $S2 $S3 ($DIR)"
}

do_stop() {
  [ -d "$DIR" ] || return 0
  [ -f "$(ports_file)" ] && . "$(ports_file)"
  local f pid pids=() postmasters=()
  for f in "$DIR"/pids/*.pid; do
    [ -f "$f" ] && pids+=("$(cat "$f")")
  done
  # Patroni first (it would restart postgres), then each live postmaster's immediate shutdown (SIGQUIT), which
  # removes its shared memory; whatever remains after 5 s is killed, children included
  for pid in $(cat "$DIR"/pids/patroni*.pid 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
  for n in 1 2 3; do
    pid=$(postmaster_of "node$n")
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      postmasters+=("$pid")
      for c in $(ps -o pid= --ppid "$pid" 2>/dev/null); do pids+=("$c"); done
      kill -QUIT "$pid" 2>/dev/null || true
    fi
  done
  for pid in "${pids[@]}"; do
    [[ " ${postmasters[*]} " == *" $pid "* ]] || kill -9 "$pid" 2>/dev/null || true
  done
  local deadline=$((SECONDS + 5))
  for pid in "${postmasters[@]}"; do
    while kill -0 "$pid" 2>/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}" "${postmasters[@]}"; do
    for c in $(ps -o pid= --ppid "$pid" 2>/dev/null); do kill -9 "$c" 2>/dev/null || true; done
  done
  for n in 1 2 3; do remove_sysv_of "$(cat "$DIR/pg/node$n/killed-postmaster" 2>/dev/null || true)"; done
  sleep 0.2
  [ -n "${ETCD_DATA:-}" ] && case "$ETCD_DATA" in /dev/shm/orderflow-ha-rig-*) rm -rf "$ETCD_DATA" ;; esac
  rm -rf "$DIR"
  log "stopped and removed $DIR"
}

do_status() {
  load_ports
  local name
  for name in etcd patroni1 patroni2 patroni3 haproxy redis-master redis-replica sentinel1 sentinel2 sentinel3; do
    printf '%-14s %s\n' "$name" "$(alive "$name" && echo "pid $(pid_of "$name")" || echo down)"
  done
  echo "leader: $(leader || echo none), sync standby: $(sync_standby || true)"
  echo "haproxy 127.0.0.1:$HAPROXY primary: $(through_haproxy && echo yes || echo no)"
  echo "redis master (Sentinel $S1): $(redis_master_port "$S1" || echo unknown)"
  patronictl -c "$DIR/pg/node1/patroni.yml" list 2>/dev/null || true
}

do_env() {
  load_ports
  cat <<EOF
QUARKUS_DATASOURCE_REACTIVE_URL=postgresql://127.0.0.1:$HAPROXY/$DB_NAME
QUARKUS_DATASOURCE_JDBC_URL=jdbc:postgresql://127.0.0.1:$HAPROXY/$DB_NAME
QUARKUS_DATASOURCE_USERNAME=postgres
QUARKUS_DATASOURCE_PASSWORD=postgres
QUARKUS_REDIS_CLIENT_TYPE=sentinel
QUARKUS_REDIS_HOSTS=redis://127.0.0.1:$S1,redis://127.0.0.1:$S2,redis://127.0.0.1:$S3
QUARKUS_REDIS_MASTER_NAME=$MASTER_NAME
QUARKUS_REDIS_ROLE=master
QUARKUS_REDIS_AUTO_FAILOVER=true
EOF
}

postmaster_of() { head -1 "$DIR/pg/$1/data/postmaster.pid" 2>/dev/null || true; }

# A postmaster killed with -9 leaves its small System V segment (PostgreSQL's interlock) behind: remove the ones it
# created, once nothing is attached to them any more.
remove_sysv_of() {
  local pm=$1
  [ -n "$pm" ] || return 0
  ipcs -m -p 2>/dev/null | awk -v pm="$pm" '$3 == pm {print $1}' | while read -r id; do
    [ "$(ipcs -m -i "$id" 2>/dev/null | sed -n 's/.*nattch=\([0-9]*\).*/\1/p')" = 0 ] && ipcrm -m "$id" 2>/dev/null || true
  done
}

do_kill_primary() {
  load_ports
  local node; node=$(leader) || die "no leader to kill"
  local n=${node#node} pm; pm=$(postmaster_of "$node")
  local victims=("$(pid_of "patroni$n")")
  if [ -n "$pm" ]; then
    # stopped, the postmaster forks no new backend; its children are then all known and die with it at once
    # (each is a session leader of its own, so no process group would reach them all)
    kill -STOP "$pm" 2>/dev/null || true
    victims+=("$pm")
    for c in $(ps -o pid= --ppid "$pm" 2>/dev/null); do victims+=("$c"); done
  fi
  kill -9 "${victims[@]}" 2>/dev/null || true
  [ -n "$pm" ] && echo "$pm" > "$DIR/pg/$node/killed-postmaster"
  log "killed $node (Patroni and postgres: ${victims[*]})"
  echo "$node"
}

do_switchover() {
  load_ports
  local from to; from=$(leader) || die "no leader"; to=$(sync_standby)
  [ -n "$to" ] || die "no synchronous standby to switch over to"
  patronictl -c "$DIR/pg/$from/patroni.yml" switchover --leader "$from" --candidate "$to" --force >&2
  wait_for "$to leads" 60 bash -c "[ \"\$(curl -s -o /dev/null -m 2 -w '%{http_code}' http://127.0.0.1:$(rest_port "$to")/primary)\" = 200 ]"
  echo "$to"
}

do_kill_redis_master() {
  load_ports
  local port; port=$(redis_master_port "$S1")
  [ -n "$port" ] || die "no Redis master known to Sentinel"
  local name
  for name in redis-master redis-replica; do
    local p; p=$(eval echo "\$$(echo "$name" | tr 'a-z-' 'A-Z_')")
    if [ "$p" = "$port" ]; then
      kill -9 "$(pid_of "$name")"
      log "killed the Redis master $name (port $port)"
      echo "$port"
      return 0
    fi
  done
  die "the master's port $port is none of the rig's"
}

do_heal() {
  load_ports
  for n in 1 2 3; do
    alive "patroni$n" || { log "restarting node$n"; start_patroni "$n"; }
  done
  alive redis-master || { log "restarting redis-master"; start_redis master "$REDIS_MASTER"; }
  alive redis-replica || { log "restarting redis-replica"; start_redis replica "$REDIS_REPLICA" --replicaof 127.0.0.1 "$REDIS_MASTER"; }
  wait_for "the rig is healthy again" "$HEALTHY_WITHIN" healthy
  log "healthy: leader $(leader), sync standby $(sync_standby)"
}

case "$cmd" in
  install) ensure_installed ;;
  start) do_start ;;
  stop) do_stop ;;
  status) do_status ;;
  env) do_env ;;
  wait-healthy) load_ports; wait_for "healthy" "$HEALTHY_WITHIN" healthy ;;
  kill-primary) do_kill_primary ;;
  switchover) do_switchover ;;
  kill-redis-master) do_kill_redis_master ;;
  heal) do_heal ;;
  *) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
