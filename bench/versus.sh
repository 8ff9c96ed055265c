#!/usr/bin/env bash
# orderflow beside the conventional peer, in ONE run on ONE machine, with ONE driver (issue 14).
#
#   bench/versus.sh [--before GIT-REV] [--memory]
#
# 1. builds the peer (../shared/peers/spring-jpa: Spring Boot + Spring Data JPA, the same HTTP contract), the
#    service (target/quarkus-app) and, with --before, the service as it was at GIT-REV (a detached worktree);
# 2. the peer, alone, with its own driver (../shared/peers/bench/bench.sh: its loader, then wrk with 2 threads and
#    32 connections on ship, same-key retry, duplicate SHIP with a new key and GET) and its default JVM flags;
# 3. one database of prepared orders for every orderflow contestant: the peer's loader makes VERSUS_ORDERS orders
#    through the API (PAID, DUP_ORDERS of them shipped: the duplicate and GET scenarios' orders), and
#    VERSUS_SHIP_ORDERS more PAID orders are seeded in SQL for the ship runs, which use each order once (as the
#    anchor's are); each contestant starts on a fresh copy of it (createdb -T); with --before, the old build
#    prepares a database of its own the same way (its schema is its own);
# 4. each orderflow contestant, alone: "orderflow" as shipped (the container's JVM flags under a 768 MiB limit,
#    group commit as configured), "orderflow-group-commit-off", with --before the old build, with --memory the JVM
#    flag sets of the memory search; each driven by the peer's wrk scripts with the same settings; then ship at a
#    fixed pace near 10% and 50% of that contestant's own ship saturation (wrk with a per-connection delay,
#    calibrated once) for the latency goals; service and PostgreSQL CPU per request; batch sizes; RSS;
# 5. the physical anchor: pgbench on the service's own transition statements (bench/sql/*.pgbench, generated from
#    TransitionSql and TransitionBatchSql by BenchAnchorSqlTest), keyed, keyless, and the group-commit statement
#    at the batch size the service reached, at the service's pool size;
# 6. prints the ratios of this run only (bench/target/versus/summary.md). Absolute numbers drift between machines.
#
# Env: VERSUS_SECONDS (15 per scenario), VERSUS_ORDERS (20000 made through the API), VERSUS_SHIP_ORDERS (210000
#      seeded), VERSUS_PEER_ORDERS (30000), VERSUS_DUP_ORDERS (2000), VERSUS_WARMUP (30), VERSUS_REDIS_DB (1; never
#      0), VERSUS_JAVA_OPTS (orderflow's shipped JVM flags), PEER_DIR (../shared/peers), VERSUS_PGBENCH_SECONDS (15),
#      VERSUS_KEEP_DBS (0: the versus_* databases are dropped at the end).
# Needs: java, wrk, pgbench, python3, curl, openssl; PostgreSQL (trust, user postgres) and Redis on 127.0.0.1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/bench/target/versus
PEERS=${PEER_DIR:-$ROOT/../shared/peers}
SECONDS_PER=${VERSUS_SECONDS:-15}
ORDERS=${VERSUS_ORDERS:-20000}
SHIP_ORDERS=${VERSUS_SHIP_ORDERS:-210000}
PEER_ORDERS=${VERSUS_PEER_ORDERS:-30000}
DUP_ORDERS=${VERSUS_DUP_ORDERS:-2000}
WARMUP=${VERSUS_WARMUP:-30}
REDIS_DB=${VERSUS_REDIS_DB:-1}
PGBENCH_SECONDS=${VERSUS_PGBENCH_SECONDS:-15}
POOL=20                       # quarkus.datasource.reactive.max-size; the peer's Hikari pool is 20 too
# orderflow as shipped: the Dockerfile's JAVA_OPTS under the 768 MiB limit issue 14 measures against (MaxRAM
# emulates it; k8s/ gives the pod 512Mi: with the heap and code cache fixed, the JVM sizes nothing else from it)
SHIPPED_FLAGS=${VERSUS_JAVA_OPTS:-"-XX:MaxRAM=768m $(sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' "$ROOT/Dockerfile")"}
SHIPPED_ENV="MALLOC_ARENA_MAX=$(sed -n 's/^ENV MALLOC_ARENA_MAX=//p' "$ROOT/Dockerfile")"
BEFORE=""
MEMORY=false
while [ $# -gt 0 ]; do
  case "$1" in
    --before) BEFORE=${2:?--before needs a git revision}; shift 2 ;;
    --memory) MEMORY=true; shift ;;
    *) echo "usage: $0 [--before GIT-REV] [--memory]" >&2; exit 2 ;;
  esac
done
[ "$REDIS_DB" != 0 ] || { echo "VERSUS_REDIS_DB must not be 0" >&2; exit 2; }

log() { printf '[versus %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "FAILED: $*"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
psql_on() { local db=$1; shift; psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d "$db" "$@"; }
fresh_db() { # fresh_db NAME [TEMPLATE]
  dropdb -h 127.0.0.1 -U postgres --if-exists "$1"
  createdb -h 127.0.0.1 -U postgres ${2:+-T "$2"} "$1"
}

PID=""
# the contestants' databases (a few hundred MB each) go when the run ends, however it ends; VERSUS_KEEP_DBS=1 keeps
# them for a look afterwards
cleanup() {
  [ -z "$PID" ] || { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null || true; }
  [ "${VERSUS_KEEP_DBS:-0}" = 1 ] && return
  local db
  for db in $(psql -X -Atq -h 127.0.0.1 -U postgres -d postgres \
      -c "select datname from pg_database where datname like 'versus\_%'" 2>/dev/null); do
    dropdb -h 127.0.0.1 -U postgres --if-exists "$db" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the Debian packages this script uses are installed by it when missing
for tool in wrk:wrk pgbench:postgresql-contrib redis-cli:redis-tools openssl:openssl curl:curl bc:bc; do
  command -v "${tool%%:*}" >/dev/null && continue
  log "installing ${tool#*:}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${tool#*:}" > /dev/null \
    || die "${tool%%:*} is missing and could not be installed (apt-get install -y ${tool#*:})"
done
command -v java >/dev/null && command -v python3 >/dev/null || die "java 17 and python3 are needed"
pg_isready -q -h 127.0.0.1 -p 5432 || die "PostgreSQL is not up on 127.0.0.1:5432"
redis-cli -p 6379 ping 2>/dev/null | grep -q PONG || die "Redis is not up on 127.0.0.1:6379"
[ -f "$PEERS/bench/bench.sh" ] || die "no peer driver in $PEERS/bench"
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

# --- processes ---
start_orderflow() { # start_orderflow DIR PORT DB NAME ENV FLAGS
  local dir=$1 port=$2 db=$3 name=$4 extra_env=$5 flags=$6
  redis-cli -n "$REDIS_DB" flushdb > /dev/null
  # shellcheck disable=SC2086
  (cd "$OUT" && exec env QUARKUS_HTTP_PORT="$port" \
      QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://127.0.0.1:5432/$db" \
      QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://127.0.0.1:5432/$db" \
      QUARKUS_REDIS_HOSTS="redis://127.0.0.1:6379/$REDIS_DB" \
      PAYMENTS_PROVIDERS_MOCKPAY_SECRETS=whsec_dev_mockpay_not_a_secret \
      MP_JWT_VERIFY_PUBLICKEY_LOCATION=dev/publicKey.pem \
      MP_JWT_VERIFY_ISSUER=https://orderflow.dev/dev-issuer \
      $extra_env \
      java $flags -jar "$dir/target/quarkus-app/quarkus-run.jar") > "$OUT/$name.log" 2>&1 &
  PID=$!
}

await_ready() { # await_ready NAME PORT
  for _ in $(seq 1 240); do
    kill -0 "$PID" 2>/dev/null || die "$1 exited during start-up: $(tail -n 20 "$OUT/$1.log")"
    curl -sf -o /dev/null "http://127.0.0.1:$2/q/health/ready" && return
    sleep 0.5
  done
  die "$1 did not get ready"
}

stop() { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""; }

rss() { # rss NAME — RSS and its peak, of the running contestant
  printf '%s\t%s\t%s\n' "$1" "$(awk '/^VmRSS/ {print $2}' "/proc/$PID/status")" \
      "$(awk '/^VmHWM/ {print $2}' "/proc/$PID/status")" >> "$OUT/rss.tsv"
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
pg_ticks() { # CPU ticks of the machine's PostgreSQL backends
  local total=0 p
  for p in $(pgrep -P "$(head -n 1 "$(psql -X -Atq -h 127.0.0.1 -U postgres -c 'show data_directory')/postmaster.pid")"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

# --- the peer, with its own driver ---
contest_peer() {
  local port
  port=$(free_port)
  fresh_db versus_peer
  log "peer on :$port (database versus_peer)"
  (cd "$OUT" && exec env SERVER_PORT="$port" SPRING_DATASOURCE_URL="jdbc:postgresql://127.0.0.1:5432/versus_peer" \
      PAYMENTS_PROVIDERS_MOCKPAY_SECRETS=bench-secret-1 java -jar "$PEER_JAR") > "$OUT/peer.log" 2>&1 &
  PID=$!
  await_ready peer "$port"
  env SECRET=bench-secret-1 ORDERS="$PEER_ORDERS" DUP_ORDERS="$DUP_ORDERS" WARMUP="$WARMUP" OUT_DIR="$OUT/peer" \
      bash "$PEERS/bench/bench.sh" "http://127.0.0.1:$port" "$SECONDS_PER" 32 | tee "$OUT/peer-driver.txt"
  # the driver's measured dup_newkey repeats its warm-up's keys (see wrk_run): the same script once more, with
  # keys of its own, measures the peer on new-key duplicates; the driver's figure is kept as dup_newkey_replayed
  NAME=peer IDS=$OUT/peer BASE=http://127.0.0.1:$port
  sleep 2
  wrk_run dup_newkey "$OUT/peer/shipped_ids.txt" "$SECONDS_PER" 32 "$OUT/peer/fresh.tsv"
  rss peer
  stop
  sed 's/^dup_newkey\t/dup_newkey_replayed\t/' "$OUT/peer/results.tsv" > "$OUT/peer.tsv"
  cat "$OUT/peer/fresh.tsv" >> "$OUT/peer.tsv"
}

# --- the prepared orders every orderflow contestant starts from ---
prepare_orders() { # prepare_orders DIR TEMPLATE IDS — through DIR's build, so the schema is its own
  local dir=$1 port
  TEMPLATE=$2 IDS=$3
  port=$(free_port)
  fresh_db "$TEMPLATE"
  mkdir -p "$IDS"
  log "preparing $ORDERS orders through the API and seeding $SHIP_ORDERS PAID ones (database $TEMPLATE)"
  start_orderflow "$dir" "$port" "$TEMPLATE" "prepare-$TEMPLATE" "$SHIPPED_ENV" "$SHIPPED_FLAGS"
  await_ready "prepare-$TEMPLATE" "$port"
  env SECRET=whsec_dev_mockpay_not_a_secret JWT_KEY="$ROOT/dev/jwt/privateKey.pem" \
      JWT_ISSUER=https://orderflow.dev/dev-issuer \
      python3 "$PEERS/bench/loader.py" "http://127.0.0.1:$port" "$IDS" "$ORDERS" "$DUP_ORDERS" | tee "$OUT/loader.txt"
  stop
  psql_on "$TEMPLATE" <<SQL > /dev/null
insert into orders (id, customer_id, status, version, currency, amount, items, payment_provider, payment_txn_id,
                    paid_at, created_at, updated_at)
select ('00000000-0000-4000-9000-' || lpad(to_hex(n), 12, '0'))::uuid, 'c-versus', 'PAID', 2, 'USD', 2999,
       '[{"sku": "SKU-1", "quantity": 2, "unitPrice": 1250}, {"sku": "SKU-2", "quantity": 1, "unitPrice": 499}]',
       'mockpay', 'txn-versus-' || n, now(), now(), now()
from generate_series(1, $SHIP_ORDERS) n;
vacuum analyze;
checkpoint;
SQL
  psql_on "$TEMPLATE" -Atc "select id from orders where customer_id = 'c-versus' order by id" > "$IDS/seeded_ids.txt"
  # slices of the seeded orders: ship's warm-up (enough for 2,000/s over a 30 s warm-up: after 10 s the JIT still
  # compiled), ship at saturation (enough for 5,000/s), the paced runs (each contestant has its own copy of the
  # database, so every contestant uses the same slices)
  slice() { sed -n "$(($2 + 1)),$(($2 + $3))p" "$IDS/seeded_ids.txt" > "$IDS/$1"; }
  slice ship-warmup 0 60000
  slice ship 60000 80000
  slice ship-low 140000 15000
  slice ship-half 155000 45000
}

# Every wrk run gets a RUN_ID of its own: dup_newkey.lua names its keys "dup-<RUN_ID>-<thread>-<n>" and starts at
# math.random, which wrk never seeds, so a measured run sharing its warm-up's RUN_ID would send exactly the
# warm-up's (key, order) pairs again: stored answers to replay, not the new-key duplicates the scenario names.
wrk_run() { # wrk_run SCENARIO IDS-FILE SECONDS CONNECTIONS RESULTS [DELAY_MS]
  local script=$PEERS/bench/$1.lua auth=""
  [ -z "${6:-}" ] || script=$ROOT/bench/wrk/paced.lua
  [ ! -f "$IDS/operator.token" ] || auth="Bearer $(cat "$IDS/operator.token")"
  IDS_FILE=$2 SCENARIO=$1 RESULTS=$5 DELAY_MS=${6:-0} BENCH_DIR=$PEERS/bench THREADS=2 \
    RUN_ID="$(date +%s%N)-$$" env ${auth:+"BENCH_AUTH=$auth"} \
    wrk -t 2 -c "$4" -d "${3}s" --timeout 10s -s "$script" "$BASE" > "$OUT/$NAME/wrk-$1-${3}s-c$4${6:+-d$6}.txt" 2>&1
}

measure() { # measure SCENARIO IDS-FILE — at saturation, with CPU per request
  local a b c d line
  a=$(cpu_ticks "$PID"); b=$(pg_ticks)
  wrk_run "$1" "$2" "$SECONDS_PER" 32 "$OUT/$NAME/results.tsv"
  c=$(cpu_ticks "$PID"); d=$(pg_ticks)
  line=$(grep "^$1	" "$OUT/$NAME/results.tsv" | tail -n 1)
  printf '%s\t%s\t%s\t%s\n' "$1" "$(echo "$line" | cut -f8)" "$((c - a))" "$((d - b))" >> "$OUT/$NAME/cpu.tsv"
}

paced() { # paced LABEL PERCENT IDS-FILE — ship at about PERCENT% of this contestant's ship saturation
  local sat target conns delay got
  sat=$(awk -F'\t' '$1 == "ship" {print $2}' "$OUT/$NAME/results.tsv")
  target=$(echo "$sat * $2 / 100" | bc -l)
  conns=$(( $2 >= 50 ? 32 : 8 ))
  delay=$(echo "1000 * $conns / $target" | bc -l)
  # calibrate: a closed loop of conns connections, each waiting delay ms between requests, runs below the target
  # by its own latency; one short run measures it and the delay is corrected once
  wrk_run ship "$3" 5 "$conns" "$OUT/$NAME/calibration.tsv" "$(printf '%.0f' "$delay")"
  got=$(tail -n 1 "$OUT/$NAME/calibration.tsv" | cut -f2)
  delay=$(echo "$delay - (1000 * $conns / $got - 1000 * $conns / $target)" | bc -l)
  delay=$(printf '%.0f' "$(echo "if ($delay < 1) 1 else $delay" | bc -l)")
  wrk_run ship "$3" "$SECONDS_PER" "$conns" "$OUT/$NAME/paced.tsv" "$delay"
  printf '%s\t%s\t%s\n' "$1" "$2" "$(tail -n 1 "$OUT/$NAME/paced.tsv")" >> "$OUT/$NAME/paced-summary.tsv"
}

contest_orderflow() { # contest_orderflow NAME DIR "ENV" "FLAGS"
  local port
  NAME=$1
  port=$(free_port)
  BASE=http://127.0.0.1:$port
  mkdir -p "$OUT/$NAME"
  fresh_db "versus_${NAME//-/_}" "$TEMPLATE"
  log "$NAME on :$port ($4${3:+; $3})"
  printf '%s\t%s\t%s\n' "$NAME" "$3" "$4" >> "$OUT/contestants.tsv"
  start_orderflow "$2" "$port" "versus_${NAME//-/_}" "$NAME" "$3" "$4"
  await_ready "$NAME" "$port"
  wrk_run ship "$IDS/ship-warmup" "$WARMUP" 32 "$OUT/$NAME/warmup.tsv"
  for s in dup_retry dup_newkey get; do
    wrk_run "$s" "$IDS/$([ "$s" = get ] && echo all || echo shipped)_ids.txt" "$WARMUP" 32 "$OUT/$NAME/warmup.tsv"
  done
  curl -s "$BASE/q/metrics" | grep -E '^orderflow_transitions_batch_rows_(count|sum)' > "$OUT/$NAME/batch-before.txt" || true
  sleep 2; measure ship "$IDS/ship"
  curl -s "$BASE/q/metrics" | grep -E '^orderflow_transitions_batch_rows_(count|sum)' > "$OUT/$NAME/batch-after.txt" || true
  sleep 2; measure dup_retry "$IDS/shipped_ids.txt"
  sleep 2; measure dup_newkey "$IDS/shipped_ids.txt"
  sleep 2; measure get "$IDS/all_ids.txt"
  sleep 2; paced low 10 "$IDS/ship-low"
  sleep 2; paced half 50 "$IDS/ship-half"
  rss "$NAME"
  stop
  grep -c ' ERROR ' "$OUT/$NAME.log" > "$OUT/$NAME/errors.txt" || true
}

{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$(git -C "$ROOT" rev-parse --short HEAD)${BEFORE:+ before=$BEFORE}"
  echo "cores=$(nproc) cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "orderflow_flags=$SHIPPED_FLAGS"
  echo "driver=$PEERS/bench wrk scripts, ${SECONDS_PER}s after ${WARMUP}s of warm-up per scenario, 2 threads, 32 connections; orderflow: $ORDERS orders via the API + $SHIP_ORDERS seeded; peer: $PEER_ORDERS via the API"
  echo "clock_ticks_per_second=$(getconf CLK_TCK)"
} > "$OUT/environment.txt"

contest_peer
if [ -n "$BEFORE_DIR" ]; then
  # the old build on orders it prepared itself, in its own schema
  prepare_orders "$BEFORE_DIR" versus_template_before "$OUT/orders-before"
  contest_orderflow before "$BEFORE_DIR" "$SHIPPED_ENV" "$SHIPPED_FLAGS"
fi
prepare_orders "$ROOT" versus_template "$OUT/orders"
contest_orderflow orderflow "$ROOT" "$SHIPPED_ENV" "$SHIPPED_FLAGS"
contest_orderflow orderflow-group-commit-off "$ROOT" "$SHIPPED_ENV ORDERS_GROUP_COMMIT_ENABLED=false IDEMPOTENCY_RECORDS_GROUP_COMMIT=false" "$SHIPPED_FLAGS"
if $MEMORY; then
  # the memory search: the shipped flags' neighbours, lowest heap first (docs/benchmarks.md says which won)
  contest_orderflow mem-default "$ROOT" "" "-XX:MaxRAM=768m -XX:MaxRAMPercentage=75"
  contest_orderflow mem-no-arena-cap "$ROOT" "" "$SHIPPED_FLAGS"
  contest_orderflow mem-xmx96 "$ROOT" "$SHIPPED_ENV" "-XX:MaxRAM=768m -Xmx96m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -Xss512k"
  contest_orderflow mem-xmx128 "$ROOT" "$SHIPPED_ENV" "-XX:MaxRAM=768m -Xmx128m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -Xss512k"
  contest_orderflow mem-xmx192 "$ROOT" "$SHIPPED_ENV" "-XX:MaxRAM=768m -Xmx192m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -Xss512k"
  contest_orderflow mem-xmx160-g1 "$ROOT" "$SHIPPED_ENV" "-XX:MaxRAM=768m -Xmx160m -XX:+UseG1GC -XX:ReservedCodeCacheSize=64m -Xss512k"
fi

# the batch size the service reached on ship, for the group-commit anchor
ROWS=$(python3 - "$OUT/orderflow" <<'PY'
import sys, re
def read(p):
    v = {}
    for line in open(p):
        k, n = line.split()
        v[k.split('{')[0]] = float(n)
    return v
try:
    a, b = read(sys.argv[1] + "/batch-before.txt"), read(sys.argv[1] + "/batch-after.txt")
    n = b["orderflow_transitions_batch_rows_count"] - a.get("orderflow_transitions_batch_rows_count", 0)
    s = b["orderflow_transitions_batch_rows_sum"] - a.get("orderflow_transitions_batch_rows_sum", 0)
    print(max(2, round(s / n)) if n else 8)
except Exception:
    print(8)
PY
)
fresh_db versus_anchor "$TEMPLATE"
log "pgbench on the service's own statements ($POOL clients, ${PGBENCH_SECONDS}s each; batches of $ROWS)"
"$ROOT/bench/anchor.sh" versus_anchor pgbench-keyed keyed "$OUT" "$POOL" "$PGBENCH_SECONDS"
"$ROOT/bench/anchor.sh" versus_anchor pgbench-keyless keyless "$OUT" "$POOL" "$PGBENCH_SECONDS"
"$ROOT/bench/anchor.sh" versus_anchor pgbench-batch batch-keyed "$OUT" "$POOL" "$PGBENCH_SECONDS" "$ROWS"
"$ROOT/bench/anchor.sh" versus_anchor pgbench-batch-4-clients batch-keyed "$OUT" 4 "$PGBENCH_SECONDS" "$ROWS"
python3 "$ROOT/bench/versus_report.py" "$OUT" | tee "$OUT/summary.md"
