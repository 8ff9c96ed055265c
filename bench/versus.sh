#!/usr/bin/env bash
# orderflow beside the conventional peer, in ONE run on ONE machine, with ONE driver (issue 14 §1).
#
#   bench/versus.sh [--before GIT-REV]
#
# 1. builds the peer (../shared/peers/spring-jpa: Spring Boot + Spring Data JPA, the same HTTP contract), the
#    service (target/quarkus-app) and, with --before, the service as it was at GIT-REV (a detached worktree);
# 2. runs each one alone, one after the other, each on a fresh database of its own, with the JVM flags it ships
#    with (the peer: its defaults; orderflow: the container's, VERSUS_JAVA_OPTS), driven by the peer's own driver
#    (../shared/peers/bench/bench.sh: loader + wrk, 2 threads, 32 connections): ship, same-key retry, keyless-ish
#    duplicate with a new key, GET; records each process's RSS after its run;
# 3. runs the physical anchor: pgbench on the service's own transition statement (bench/sql/*.pgbench, generated
#    from TransitionSql by BenchAnchorSqlTest), keyed and keyless, at the service's pool size;
# 4. prints the ratios of this run only (bench/target/versus/summary.md). Absolute numbers drift between machines.
#
# Env: VERSUS_SECONDS (15 per scenario), VERSUS_ORDERS (60000 prepared orders for orderflow), VERSUS_PEER_ORDERS
#      (30000 for the peer), VERSUS_DUP_ORDERS (2000 shipped in advance), VERSUS_WARMUP (5),
#      VERSUS_REDIS_DB (1; never 0), VERSUS_JAVA_OPTS (orderflow's JVM flags), PEER_DIR (../shared/peers), VERSUS_PGBENCH_SECONDS (15).
# Needs: java, wrk, pgbench, python3, curl, openssl; PostgreSQL (trust, user postgres) and Redis on 127.0.0.1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/bench/target/versus
PEERS=${PEER_DIR:-$ROOT/../shared/peers}
SECONDS_PER=${VERSUS_SECONDS:-15}
ORDERS=${VERSUS_ORDERS:-60000}            # enough PAID orders that ship never runs out of ids in SECONDS_PER
PEER_ORDERS=${VERSUS_PEER_ORDERS:-30000}  # the peer ships at under 2,000/s: fewer to prepare
WARMUP=${VERSUS_WARMUP:-5}
REDIS_DB=${VERSUS_REDIS_DB:-1}
PGBENCH_SECONDS=${VERSUS_PGBENCH_SECONDS:-15}
POOL=20                       # quarkus.datasource.reactive.max-size; the peer's Hikari pool is 20 too
BEFORE=""
case "${1:-}" in
  --before) BEFORE=${2:?--before needs a git revision} ;;
  "") ;;
  *) echo "usage: $0 [--before GIT-REV]" >&2; exit 2 ;;
esac
[ "$REDIS_DB" != 0 ] || { echo "VERSUS_REDIS_DB must not be 0" >&2; exit 2; }

log() { printf '[versus %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "FAILED: $*"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
fresh_db() {
  dropdb -h 127.0.0.1 -U postgres --if-exists "$1"
  createdb -h 127.0.0.1 -U postgres "$1"
}

PID=""
cleanup() { [ -z "$PID" ] || { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; }; }
trap cleanup EXIT
trap 'exit 130' INT TERM

# the Debian packages this script uses are installed by it when missing
for tool in wrk:wrk pgbench:postgresql-contrib redis-cli:redis-tools openssl:openssl curl:curl; do
  command -v "${tool%%:*}" >/dev/null && continue
  log "installing ${tool#*:}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${tool#*:}" > /dev/null \
    || die "${tool%%:*} is missing and could not be installed (apt-get install -y ${tool#*:})"
done
command -v java >/dev/null && command -v python3 >/dev/null || die "java 17 and python3 are needed"
pg_isready -q -h 127.0.0.1 -p 5432 || die "PostgreSQL is not up on 127.0.0.1:5432"
redis-cli -p 6379 ping 2>/dev/null | grep -q PONG || die "Redis is not up on 127.0.0.1:6379"
[ -x "$PEERS/bench/bench.sh" ] || [ -f "$PEERS/bench/bench.sh" ] || die "no peer driver in $PEERS/bench"
rm -rf "$OUT"
mkdir -p "$OUT"

# --- builds ---
build_peer() {
  local dir=$ROOT/bench/target/peer
  if [ ! -f "$dir/target/orderflow-spring-peer.jar" ] || [ -n "$(find "$PEERS/spring-jpa" -newer "$dir/target/orderflow-spring-peer.jar" -type f -print -quit)" ]; then
    log "building the peer"
    rm -rf "$dir"
    cp -r "$PEERS/spring-jpa" "$dir"     # the peers folder may be read-only
    "$ROOT/mvnw" -B -q -f "$dir/pom.xml" package -DskipTests > "$OUT/peer-build.log" 2>&1 \
      || die "the peer does not build: $(tail -n 5 "$OUT/peer-build.log")"
  fi
  PEER_JAR=$dir/target/orderflow-spring-peer.jar
}

build_service() { # build_service DIR — packages DIR's service unless its jar is newer than its sources
  local dir=$1 jar=$1/target/quarkus-app/quarkus-run.jar
  if [ ! -f "$jar" ] || [ -n "$(find "$dir/src/main" "$dir/pom.xml" -newer "$jar" -print -quit)" ]; then
    log "packaging the service in $dir"
    (cd "$dir" && ./mvnw -B -q package -DskipTests) > "$OUT/build-$(basename "$dir").log" 2>&1 \
      || die "the service in $dir does not build: $(tail -n 5 "$OUT/build-$(basename "$dir").log")"
  fi
}

build_peer
build_service "$ROOT"
BEFORE_DIR=""
if [ -n "$BEFORE" ]; then
  BEFORE_DIR=$ROOT/bench/target/before
  if [ "$(git -C "$BEFORE_DIR" rev-parse HEAD 2>/dev/null)" != "$(git -C "$ROOT" rev-parse "$BEFORE^{commit}")" ]; then
    git -C "$ROOT" worktree remove --force "$BEFORE_DIR" 2>/dev/null || rm -rf "$BEFORE_DIR"
    git -C "$ROOT" worktree prune
    git -C "$ROOT" worktree add --detach "$BEFORE_DIR" "$BEFORE" > /dev/null
  fi
  build_service "$BEFORE_DIR"
fi

# --- one contestant: fresh database, start, drive, RSS, stop ---
# orderflow as shipped: the Dockerfile's JAVA_OPTS under the pod's 768 MiB limit (k8s/base), which MaxRAM emulates
SHIPPED_FLAGS=${VERSUS_JAVA_OPTS:-"-XX:MaxRAM=768m -XX:MaxRAMPercentage=75"}

start_orderflow() { # start_orderflow DIR PORT DB
  local dir=$1 port=$2 db=$3
  redis-cli -n "$REDIS_DB" flushdb > /dev/null
  # shellcheck disable=SC2086
  (cd "$OUT" && exec env QUARKUS_HTTP_PORT="$port" \
      QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://127.0.0.1:5432/$db" \
      QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://127.0.0.1:5432/$db" \
      QUARKUS_REDIS_HOSTS="redis://127.0.0.1:6379/$REDIS_DB" \
      PAYMENTS_PROVIDERS_MOCKPAY_SECRETS=whsec_dev_mockpay_not_a_secret \
      MP_JWT_VERIFY_PUBLICKEY_LOCATION=dev/publicKey.pem \
      MP_JWT_VERIFY_ISSUER=https://orderflow.dev/dev-issuer \
      java $SHIPPED_FLAGS -jar "$dir/target/quarkus-app/quarkus-run.jar") > "$OUT/$4.log" 2>&1 &
  PID=$!
}

start_peer() { # start_peer PORT DB NAME
  (cd "$OUT" && exec env SERVER_PORT="$1" SPRING_DATASOURCE_URL="jdbc:postgresql://127.0.0.1:5432/$2" \
      PAYMENTS_PROVIDERS_MOCKPAY_SECRETS=bench-secret-1 java -jar "$PEER_JAR") > "$OUT/$3.log" 2>&1 &
  PID=$!
}

contest() { # contest NAME KIND [DIR]
  local name=$1 kind=$2 dir=${3:-} port db
  port=$(free_port)
  db=versus_${name//-/_}
  fresh_db "$db"
  log "$name on :$port (database $db)"
  local driver_env=()
  if [ "$kind" = peer ]; then
    start_peer "$port" "$db" "$name"
    driver_env=(SECRET=bench-secret-1 ORDERS="$PEER_ORDERS")
  else
    start_orderflow "$dir" "$port" "$db" "$name"
    driver_env=(SECRET=whsec_dev_mockpay_not_a_secret ORDERS="$ORDERS" JWT_KEY="$ROOT/dev/jwt/privateKey.pem"
                JWT_ISSUER=https://orderflow.dev/dev-issuer)
  fi
  for _ in $(seq 1 240); do
    kill -0 "$PID" 2>/dev/null || die "$name exited during start-up: $(tail -n 20 "$OUT/$name.log")"
    curl -sf -o /dev/null "http://127.0.0.1:$port/q/health/ready" && break
    sleep 0.5
  done
  env "${driver_env[@]}" DUP_ORDERS="${VERSUS_DUP_ORDERS:-2000}" WARMUP="$WARMUP" OUT_DIR="$OUT/$name" \
      bash "$PEERS/bench/bench.sh" "http://127.0.0.1:$port" "$SECONDS_PER" 32 | tee "$OUT/$name-driver.txt"
  printf '%s\t%s\t%s\n' "$name" "$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")" \
      "$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")" >> "$OUT/rss.tsv"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  cp "$OUT/$name/results.tsv" "$OUT/$name.tsv"
}

{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$(git -C "$ROOT" rev-parse --short HEAD)${BEFORE:+ before=$BEFORE}"
  echo "cores=$(nproc) cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "orderflow_flags=$SHIPPED_FLAGS"
  echo "driver=$PEERS/bench/bench.sh ${SECONDS_PER}s 32 connections, ORDERS=$ORDERS (peer $PEER_ORDERS)"
} > "$OUT/environment.txt"

contest peer peer
[ -z "$BEFORE_DIR" ] || contest before orderflow "$BEFORE_DIR"
contest orderflow orderflow "$ROOT"
log "pgbench on the service's own statement ($POOL clients, ${PGBENCH_SECONDS}s each)"
"$ROOT/bench/anchor.sh" versus_orderflow pgbench-keyed keyed "$OUT" "$POOL" "$PGBENCH_SECONDS"
"$ROOT/bench/anchor.sh" versus_orderflow pgbench-keyless keyless "$OUT" "$POOL" "$PGBENCH_SECONDS"
python3 "$ROOT/bench/versus_report.py" "$OUT" | tee "$OUT/summary.md"
