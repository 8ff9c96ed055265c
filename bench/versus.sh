#!/usr/bin/env bash
# orderflow beside the conventional peer, in ONE run on ONE machine, with ONE driver (issue 14).
#
#   bench/versus.sh [--before GIT-REV] [--tracing] [--no-group-commit-off] [--memory] [--rounds N]
#
# 1. builds the peer (../shared/peers/spring-jpa: Spring Boot + Spring Data JPA, the same HTTP contract), the
#    service (target/quarkus-app) and, with --before, the service as it was at GIT-REV (a detached worktree);
# 2. the peer with its own driver first, alone (../shared/peers/bench/bench.sh: its loader, then wrk with 2 threads
#    and 32 connections on ship, same-key retry, duplicate SHIP with a new key and GET) and its default JVM flags;
#    its figures are reported beside the rounds'; then PAID orders for the rounds' ship runs are seeded in its
#    database, copies of one its loader paid;
# 3. one database of prepared orders for every orderflow contestant: the peer's loader makes VERSUS_ORDERS orders
#    through the API (PAID, DUP_ORDERS of them shipped: the duplicate and GET scenarios' orders), and more PAID
#    orders are seeded in SQL for the ship runs, which use each order once (as the anchor's are); each contestant
#    starts on a fresh copy of it (createdb -T) and a Redis database of its own; with --before, the old build
#    prepares a database of its own the same way (its schema is its own);
# 4. every contestant runs at once, idle but for its turn: the peer, "orderflow" as shipped (the container's JVM
#    flags under a 768 MiB limit, group commit as configured), "orderflow-group-commit-off" and, with --before,
#    the old build, with --tracing "orderflow-tracing" (as shipped, tracing on: every span exported over OTLP to a
#    sink that answers 200); each is warmed up (30 s per scenario), then ROUNDS rounds (3) measure every scenario for every
#    contestant back to back, the contestants' order reversed in every other round, so that a change in the
#    machine's speed (this one's varies by up to 3x within minutes) falls on all of them alike; a ratio is taken
#    within a round and the report gives each round's and their median; then ship at a fixed pace near 10% and
#    50% of each orderflow contestant's own ship saturation (wrk with a per-connection delay, calibrated once), each
#    level for every orderflow contestant back to back, for the latency goals; service and PostgreSQL CPU per request; batch sizes; RSS; with --memory, the JVM flag sets
#    of the memory search after that, one at a time, one round each;
# 5. the physical anchor: pgbench on the service's own transition statements (bench/sql/*.pgbench, generated from
#    TransitionSql, one order and ARRAYS, by BenchAnchorSqlTest), keyed, keyless, and the group-commit statement
#    at the batch size the service reached, at the service's pool size;
# 6. prints the ratios of this run only (bench/target/versus/summary.md). Absolute numbers drift between machines.
#
# Env: VERSUS_SECONDS (15 per scenario), VERSUS_ORDERS (20000 made through the API), VERSUS_SHIP_SLICE (80000 seeded
#      PAID orders per round for orderflow's ship), VERSUS_PEER_SHIP_SLICE (40000 for the peer's), VERSUS_PEER_ORDERS
#      (30000), VERSUS_DUP_ORDERS (2000), VERSUS_WARMUP (30), VERSUS_REDIS_DB (5, the first of one Redis database
#      per orderflow contestant; never 0), VERSUS_JAVA_OPTS (orderflow's shipped JVM flags), PEER_DIR (../shared/peers), VERSUS_PGBENCH_SECONDS (15),
#      VERSUS_KEEP_DBS (0: the versus_* databases are dropped at the end), VERSUS_SCENARIOS (the rounds' scenarios:
#      "ship dup_retry dup_newkey get"; "ship" alone is the A/B of a change on the transition path), VERSUS_PACED (1;
#      0 leaves out the paced runs).
# Needs: java, wrk, pgbench, python3, curl, openssl; PostgreSQL (trust, user postgres) and Redis on 127.0.0.1.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/bench/target/versus
PEERS=${PEER_DIR:-$ROOT/../shared/peers}
SECONDS_PER=${VERSUS_SECONDS:-15}
ORDERS=${VERSUS_ORDERS:-20000}
SHIP_SLICE=${VERSUS_SHIP_SLICE:-80000}
PEER_SHIP_SLICE=${VERSUS_PEER_SHIP_SLICE:-40000}
ROUNDS=3
PEER_ORDERS=${VERSUS_PEER_ORDERS:-30000}
DUP_ORDERS=${VERSUS_DUP_ORDERS:-2000}
WARMUP=${VERSUS_WARMUP:-30}
REDIS_DB=${VERSUS_REDIS_DB:-5}   # 5 to 8: bench/run.sh uses 1, the tests 2 and 3
PGBENCH_SECONDS=${VERSUS_PGBENCH_SECONDS:-15}
read -r -a SCENARIOS <<< "${VERSUS_SCENARIOS:-ship dup_retry dup_newkey get}"
PACED=${VERSUS_PACED:-1}
POOL=20                       # quarkus.datasource.reactive.max-size; the peer's Hikari pool is 20 too
# orderflow as shipped: the Dockerfile's JAVA_OPTS under the 768 MiB limit issue 14 measures against (MaxRAM
# emulates it; k8s/ gives the pod 512Mi: with the heap and code cache fixed, the JVM sizes nothing else from it)
SHIPPED_FLAGS=${VERSUS_JAVA_OPTS:-"-XX:MaxRAM=768m $(sed -n 's/^ENV JAVA_OPTS="\(.*\)"$/\1/p' "$ROOT/Dockerfile")"}
SHIPPED_ENV="MALLOC_ARENA_MAX=$(sed -n 's/^ENV MALLOC_ARENA_MAX=//p' "$ROOT/Dockerfile")"
BEFORE=""
TRACING=false
MEMORY=false
GC_OFF=true
while [ $# -gt 0 ]; do
  case "$1" in
    --before) BEFORE=${2:?--before needs a git revision}; shift 2 ;;
    --tracing) TRACING=true; shift ;;
    --no-group-commit-off) GC_OFF=false; shift ;;
    --memory) MEMORY=true; shift ;;
    --rounds) ROUNDS=${2:?--rounds needs a number}; shift 2 ;;
    *) echo "usage: $0 [--before GIT-REV] [--tracing] [--no-group-commit-off] [--memory] [--rounds N]" >&2; exit 2 ;;
  esac
done
[ "$REDIS_DB" -ge 1 ] && [ "$REDIS_DB" -le 12 ] || { echo "VERSUS_REDIS_DB must be 1-12 (never 0)" >&2; exit 2; }
# every contestant runs at once, each with a pool of POOL connections: PostgreSQL must take them all, or a round
# fails midway on "too many clients" (the peer, orderflow, and each optional contestant; 10 left for psql and pgbench)
CONTESTANTS=$((2 + $([ -n "$BEFORE" ] && echo 1 || echo 0) + $($TRACING && echo 1 || echo 0) + $($GC_OFF && echo 1 || echo 0)))
MAX_CONNECTIONS=$(psql -X -Atq -h 127.0.0.1 -U postgres -d postgres -c 'show max_connections')
if [ $((CONTESTANTS * POOL + 10)) -gt "$MAX_CONNECTIONS" ]; then
  echo "$CONTESTANTS contestants need $((CONTESTANTS * POOL + 10)) connections; PostgreSQL takes $MAX_CONNECTIONS:" \
       "leave one out (--no-group-commit-off) or raise max_connections" >&2
  exit 2
fi
[ "$ROUNDS" -ge 1 ] || { echo "--rounds must be at least 1" >&2; exit 2; }
# seeded PAID orders: ship's warm-up, one slice per round, the paced runs
SHIP_ORDERS=$((60000 + ROUNDS * SHIP_SLICE + 60000))

log() { printf '[versus %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "FAILED: $*"; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
psql_on() { local db=$1; shift; psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d "$db" "$@"; }
fresh_db() { # fresh_db NAME [TEMPLATE]
  dropdb -h 127.0.0.1 -U postgres --if-exists "$1"
  createdb -h 127.0.0.1 -U postgres ${2:+-T "$2"} "$1"
}

PID=""
declare -A PID_OF BASE_OF MGMT_OF IDS_OF   # per contestant, while it runs
# the contestants' databases (a few hundred MB each) go when the run ends, however it ends; VERSUS_KEEP_DBS=1 keeps
# them for a look afterwards
SINK_PID=""
cleanup() {
  local p db
  for p in $PID "${PID_OF[@]}" $SINK_PID; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  [ "${VERSUS_KEEP_DBS:-0}" = 1 ] && return
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
start_orderflow() { # start_orderflow DIR PORT DB NAME ENV FLAGS REDIS-DB
  local dir=$1 port=$2 db=$3 name=$4 extra_env=$5 flags=$6 redis_db=$7
  redis-cli -n "$redis_db" flushdb > /dev/null
  MGMT=$(free_port)   # health and metrics: the management interface's own port (a build without one ignores it)
  # shellcheck disable=SC2086
  (cd "$OUT" && exec env QUARKUS_HTTP_PORT="$port" QUARKUS_MANAGEMENT_PORT="$MGMT" \
      QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://127.0.0.1:5432/$db" \
      QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://127.0.0.1:5432/$db" \
      QUARKUS_REDIS_HOSTS="redis://127.0.0.1:6379/$redis_db" \
      PAYMENTS_PROVIDERS_MOCKPAY_SECRETS=whsec_dev_mockpay_not_a_secret \
      MP_JWT_VERIFY_PUBLICKEY_LOCATION=dev/publicKey.pem \
      MP_JWT_VERIFY_ISSUER=https://orderflow.dev/dev-issuer \
      $extra_env \
      java $flags -jar "$dir/target/quarkus-app/quarkus-run.jar") > "$OUT/$name.log" 2>&1 &
  PID=$!
}

await_ready() { # await_ready NAME PORT [MANAGEMENT-PORT] — readiness on the management port, else (the peer, an
  # older build) on the port itself
  for _ in $(seq 1 240); do
    kill -0 "$PID" 2>/dev/null || die "$1 exited during start-up: $(tail -n 20 "$OUT/$1.log")"
    { [ -n "${3:-}" ] && curl -sf -o /dev/null "http://127.0.0.1:$3/q/health/ready"; } && return
    curl -sf -o /dev/null "http://127.0.0.1:$2/q/health/ready" && return
    sleep 0.5
  done
  die "$1 did not get ready"
}

use() { NAME=$1; PID=${PID_OF[$1]}; BASE=${BASE_OF[$1]}; MGMT_BASE=${MGMT_OF[$1]:-$BASE}; IDS=${IDS_OF[$1]}; }   # the contestant to drive

stop() { # stop NAME
  kill "${PID_OF[$1]}"; wait "${PID_OF[$1]}" 2>/dev/null || true
  unset "PID_OF[$1]"; PID=""
}

rss() { # rss NAME — RSS and its peak, of the running contestant
  printf '%s\t%s\t%s\n' "$1" "$(awk '/^VmRSS/ {print $2}' "/proc/${PID_OF[$1]}/status")" \
      "$(awk '/^VmHWM/ {print $2}' "/proc/${PID_OF[$1]}/status")" >> "$OUT/rss.tsv"
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
pg_ticks() { # CPU ticks of the machine's PostgreSQL backends: the running ones, and those that have exited since the
  # postmaster started (it reaps them: its cutime and cstime), so a connection closing during a measurement takes
  # nothing away
  local total postmaster p
  postmaster=$(head -n 1 "$(psql -X -Atq -h 127.0.0.1 -U postgres -c 'show data_directory')/postmaster.pid")
  total=$(awk '{print $16 + $17}' "/proc/$postmaster/stat")
  for p in $(pgrep -P "$postmaster"); do
    total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

# --- the peer: its own driver first, then PAID orders for the rounds ---
start_peer() {
  local port
  port=$(free_port)
  fresh_db versus_peer
  log "peer on :$port (database versus_peer)"
  (cd "$OUT" && exec env SERVER_PORT="$port" SPRING_DATASOURCE_URL="jdbc:postgresql://127.0.0.1:5432/versus_peer" \
      PAYMENTS_PROVIDERS_MOCKPAY_SECRETS=bench-secret-1 java -jar "$PEER_JAR") > "$OUT/peer.log" 2>&1 &
  PID=$!
  await_ready peer "$port"
  PID_OF[peer]=$PID; BASE_OF[peer]=http://127.0.0.1:$port; IDS_OF[peer]=$OUT/peer-driver
  mkdir -p "$OUT/peer"
  env SECRET=bench-secret-1 ORDERS="$PEER_ORDERS" DUP_ORDERS="$DUP_ORDERS" WARMUP="$WARMUP" OUT_DIR="$OUT/peer-driver" \
      bash "$PEERS/bench/bench.sh" "http://127.0.0.1:$port" "$SECONDS_PER" 32 | tee "$OUT/peer-driver.txt"
  # the rounds' ship runs use each order once: copies of one order the peer's loader paid, in the peer's own schema
  psql_on versus_peer <<SQL > /dev/null
insert into orders (id, customer_id, status, version, currency, amount, items, created_at, updated_at,
                    payment_provider, payment_txn_id, paid_at)
select ('00000000-0000-4000-9000-' || lpad(to_hex(n), 12, '0'))::uuid, 'c-versus', t.status, t.version, t.currency,
       t.amount, t.items, now(), now(), t.payment_provider, 'txn-versus-' || n, now()
from (select * from orders where status = 'PAID' limit 1) t, generate_series(1, $ROUNDS * $PEER_SHIP_SLICE) n;
vacuum analyze;
checkpoint;
SQL
  psql_on versus_peer -Atc "select id from orders where customer_id = 'c-versus' order by id" > "$OUT/peer-driver/seeded_ids.txt"
  for r in $(seq 1 "$ROUNDS"); do
    sed -n "$(((r - 1) * PEER_SHIP_SLICE + 1)),$((r * PEER_SHIP_SLICE))p" "$OUT/peer-driver/seeded_ids.txt" > "$OUT/peer-driver/ship-$r"
  done
}

# --- the prepared orders every orderflow contestant starts from ---
prepare_orders() { # prepare_orders DIR TEMPLATE IDS — through DIR's build, so the schema is its own
  local dir=$1 port template=$2 ids=$3
  port=$(free_port)
  fresh_db "$template"
  mkdir -p "$ids"
  log "preparing $ORDERS orders through the API and seeding $SHIP_ORDERS PAID ones (database $template)"
  start_orderflow "$dir" "$port" "$template" "prepare-$template" "$SHIPPED_ENV" "$SHIPPED_FLAGS" "$REDIS_DB"
  await_ready "prepare-$template" "$port" "$MGMT"
  env SECRET=whsec_dev_mockpay_not_a_secret JWT_KEY="$ROOT/dev/jwt/privateKey.pem" \
      JWT_ISSUER=https://orderflow.dev/dev-issuer \
      python3 "$PEERS/bench/loader.py" "http://127.0.0.1:$port" "$ids" "$ORDERS" "$DUP_ORDERS" | tee "$OUT/loader.txt"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  psql_on "$template" <<SQL > /dev/null
insert into orders (id, customer_id, status, version, currency, amount, items, payment_provider, payment_txn_id,
                    paid_at, created_at, updated_at)
select ('00000000-0000-4000-9000-' || lpad(to_hex(n), 12, '0'))::uuid, 'c-versus', 'PAID', 2, 'USD', 2999,
       '[{"sku": "SKU-1", "quantity": 2, "unitPrice": 1250}, {"sku": "SKU-2", "quantity": 1, "unitPrice": 499}]',
       'mockpay', 'txn-versus-' || n, now(), now(), now()
from generate_series(1, $SHIP_ORDERS) n;
vacuum analyze;
checkpoint;
SQL
  psql_on "$template" -Atc "select id from orders where customer_id = 'c-versus' order by id" > "$ids/seeded_ids.txt"
  # slices of the seeded orders: ship's warm-up (enough for 2,000/s over a 30 s warm-up: after 10 s the JIT still
  # compiled), one per round for ship at saturation (enough for 5,000/s), the paced runs (each contestant has its
  # own copy of the database, so every contestant uses the same slices)
  slice() { sed -n "$(($2 + 1)),$(($2 + $3))p" "$ids/seeded_ids.txt" > "$ids/$1"; }
  slice ship-warmup 0 60000
  for r in $(seq 1 "$ROUNDS"); do slice "ship-$r" $((60000 + (r - 1) * SHIP_SLICE)) "$SHIP_SLICE"; done
  slice ship-low $((60000 + ROUNDS * SHIP_SLICE)) 15000
  slice ship-half $((75000 + ROUNDS * SHIP_SLICE)) 45000
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

ids_for() { # ids_for SCENARIO ROUND — the current contestant's orders for it
  case $1 in
    ship) echo "$IDS/ship-$2" ;;
    dup_retry|dup_newkey) echo "$IDS/shipped_ids.txt" ;;
    get) echo "$IDS/all_ids.txt" ;;
  esac
}

batch_rows() { # batch_rows FILE — the service's group-commit batch histogram, as it stands
  { curl -sf "$MGMT_BASE/q/metrics" || curl -s "$BASE/q/metrics"; } | grep -E '^orderflow_transitions_batch_rows_(count|sum)' > "$1" || true
}

drain() { # drain NAME — the contestant's ship run's events all in its Redis Stream (or the outbox's, for a build before the feed)
  # Left running, a relay fell into the next contestant's run: in a round, the build following the peer (which has no
  # relay) shipped up to 1.6x the one following another orderflow build, in whichever order the round ran.
  local db=versus_${1//-/_} waited=0
  while { [ "$(psql -X -Atq -h 127.0.0.1 -U postgres -d "$db" \
      -c 'select exists (select 1 from outbox where published_at is null)' 2>/dev/null || echo f)" = t ] \
      || [ "$(psql -X -Atq -h 127.0.0.1 -U postgres -d "$db" -c "select (select position from event_cursors where
      name = 'sequencer') > (select position from event_cursors where name = 'redis-stream') or exists (select 1 from
      order_transitions t where t.xid >= (select horizon from event_cursors where name = 'sequencer') and not exists
      (select 1 from event_feed f where f.order_id = t.order_id and f.kind = 't' and f.ref = t.seq))" 2>/dev/null \
      || echo f)" = t ]; } && [ "$waited" -lt 300 ]; do
    sleep 2; waited=$((waited + 2))
  done
  printf '%s\t%s\n' "$1" "$waited" >> "$OUT/settle.tsv"
}

settle() { # settle NAME — the updated rows vacuumed and the pages written, before the next contestant's run
  local db=versus_${1//-/_}
  psql -X -q -h 127.0.0.1 -U postgres -d "$db" -c 'VACUUM' 2>/dev/null || true
  psql -X -q -h 127.0.0.1 -U postgres -d postgres -c 'CHECKPOINT'
}

wal_lsn() {
  psql -X -Atq -h 127.0.0.1 -U postgres -d postgres -c 'select pg_current_wal_lsn()'
}

measure() { # measure SCENARIO ROUND — at saturation, with CPU per request
  local a b c d line
  [ "$1" != ship ] || batch_rows "$OUT/$NAME/batch-before-$2.txt"
  a=$(cpu_ticks "$PID"); b=$(pg_ticks); w0=$(wal_lsn)
  wrk_run "$1" "$(ids_for "$1" "$2")" "$SECONDS_PER" 32 "$OUT/$NAME/results.tsv"
  [ "$1" != ship ] || batch_rows "$OUT/$NAME/batch-after-$2.txt"
  # a ship's cost includes getting its events out: the CPU and WAL are counted until they are all in the stream
  [ "$1" != ship ] || drain "$NAME"
  c=$(cpu_ticks "$PID"); d=$(pg_ticks); w1=$(wal_lsn)
  [ "$1" != ship ] || settle "$NAME"
  line=$(tail -n 1 "$OUT/$NAME/results.tsv")
  printf '%s\t%s\t%s\t%s\n' "$1" "$(echo "$line" | cut -f8)" "$((c - a))" "$((d - b))" >> "$OUT/$NAME/cpu.tsv"
  printf '%s\t%s\t%s\n' "$1" "$(echo "$line" | cut -f8)" "$(psql -X -Atq -h 127.0.0.1 -U postgres -d postgres \
    -c "select pg_wal_lsn_diff('$w1', '$w0')::bigint")" >> "$OUT/$NAME/wal.tsv"
  printf '%s\t%s\t%s\n' "$2" "$NAME" "$line" >> "$OUT/rounds.tsv"
}

median_rps() { # median_rps SCENARIO — of the current contestant's rounds
  awk -F'\t' -v s="$1" '$1 == s {print $2}' "$OUT/$NAME/results.tsv" | sort -n \
    | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

paced() { # paced LABEL PERCENT IDS-FILE — ship at about PERCENT% of this contestant's ship saturation
  local sat target conns delay got
  sat=$(median_rps ship)
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

start_contestant() { # start_contestant NAME DIR "ENV" "FLAGS" REDIS-DB TEMPLATE IDS — started and warmed up
  local name=$1 port
  port=$(free_port)
  mkdir -p "$OUT/$name"
  fresh_db "versus_${name//-/_}" "$6"
  log "$name on :$port ($4${3:+; $3}; Redis database $5)"
  printf '%s\t%s\t%s\n' "$name" "$3" "$4" >> "$OUT/contestants.tsv"
  start_orderflow "$2" "$port" "versus_${name//-/_}" "$name" "$3" "$4" "$5"
  await_ready "$name" "$port" "$MGMT"
  PID_OF[$name]=$PID; BASE_OF[$name]=http://127.0.0.1:$port; MGMT_OF[$name]=http://127.0.0.1:$MGMT; IDS_OF[$name]=$7
  use "$name"
  for s in "${SCENARIOS[@]}"; do
    if [ "$s" = ship ]; then wrk_run ship "$IDS/ship-warmup" "$WARMUP" 32 "$OUT/$NAME/warmup.tsv"
    else wrk_run "$s" "$(ids_for "$s" 0)" "$WARMUP" 32 "$OUT/$NAME/warmup.tsv"; fi
  done
}

round() { # round N NAME... — every scenario for every named contestant, back to back
  local r=$1 s name
  shift
  log "round $r of $ROUNDS: $*"
  for s in "${SCENARIOS[@]}"; do
    for name in "$@"; do use "$name"; sleep 2; measure "$s" "$r"; done
  done
}

{
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "commit=$(git -C "$ROOT" rev-parse --short HEAD)${BEFORE:+ before=$BEFORE}"
  echo "cores=$(nproc) cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "orderflow_flags=$SHIPPED_FLAGS"
  echo "driver=$PEERS/bench wrk scripts, ${SECONDS_PER}s after ${WARMUP}s of warm-up per scenario, 2 threads, 32 connections; orderflow: $ORDERS orders via the API + $SHIP_ORDERS seeded; peer: $PEER_ORDERS via the API + $((ROUNDS * PEER_SHIP_SLICE)) seeded"
  echo "scenarios=${SCENARIOS[*]} paced=$PACED"
  echo "rounds=$ROUNDS (every contestant running; within a round each scenario is measured for each contestant back to back; the order reverses every other round)"
  echo "clock_ticks_per_second=$(getconf CLK_TCK)"
} > "$OUT/environment.txt"

start_peer
if [ -n "$BEFORE_DIR" ]; then
  # the old build on orders it prepared itself, in its own schema
  prepare_orders "$BEFORE_DIR" versus_template_before "$OUT/orders-before"
fi
prepare_orders "$ROOT" versus_template "$OUT/orders"
TEMPLATE=versus_template
ORDER=(peer)
if [ -n "$BEFORE_DIR" ]; then
  start_contestant before "$BEFORE_DIR" "$SHIPPED_ENV" "$SHIPPED_FLAGS" $((REDIS_DB + 2)) versus_template_before "$OUT/orders-before"
  ORDER+=(before)
fi
start_contestant orderflow "$ROOT" "$SHIPPED_ENV" "$SHIPPED_FLAGS" "$REDIS_DB" "$TEMPLATE" "$OUT/orders"
ORDER+=(orderflow)
if $GC_OFF; then
  start_contestant orderflow-group-commit-off "$ROOT" "$SHIPPED_ENV ORDERS_GROUP_COMMIT_ENABLED=false IDEMPOTENCY_RECORDS_GROUP_COMMIT=false" "$SHIPPED_FLAGS" $((REDIS_DB + 1)) "$TEMPLATE" "$OUT/orders"
  ORDER+=(orderflow-group-commit-off)
fi
if $TRACING; then
  # an OTLP/HTTP receiver that takes every export and counts its bytes: the spans leave the service as they would
  SINK=$(free_port)
  python3 "$ROOT/bench/otlp_sink.py" "$SINK" "$OUT/otlp-sink.txt" > "$OUT/otlp-sink.log" 2>&1 &
  SINK_PID=$!
  start_contestant orderflow-tracing "$ROOT" "$SHIPPED_ENV QUARKUS_OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:$SINK QUARKUS_OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf" "$SHIPPED_FLAGS" $((REDIS_DB + 3)) "$TEMPLATE" "$OUT/orders"
  ORDER+=(orderflow-tracing)
fi
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then round "$r" "${ORDER[@]}"; else round "$r" $(printf '%s\n' "${ORDER[@]}" | tac); fi
done
# the paced runs, each level for every orderflow contestant back to back (group commit on and off side by side)
for level in "low 10" "half 50"; do
  [ "$PACED" = 1 ] || break
  for name in "${ORDER[@]}"; do
    [ "$name" = peer ] && continue
    use "$name"
    sleep 2; paced ${level% *} ${level#* } "$IDS/ship-${level% *}"
  done
done
for name in "${ORDER[@]}"; do
  rss "$name"
  stop "$name"
  [ "$name" = peer ] || grep -c ' ERROR ' "$OUT/$name.log" > "$OUT/$name/errors.txt" || true
done
if $MEMORY; then
  # the memory search: the shipped flags' neighbours, lowest heap first (docs/benchmarks.md says which won), one at a
  # time, one round each
  memory() { # memory NAME "ENV" "FLAGS"
    start_contestant "$1" "$ROOT" "$2" "$3" "$REDIS_DB" "$TEMPLATE" "$OUT/orders"
    round 1 "$1"
    rss "$1"
    stop "$1"
  }
  memory mem-default "" "-XX:MaxRAM=768m -XX:MaxRAMPercentage=75"
  memory mem-no-arena-cap "" "$SHIPPED_FLAGS"
  memory mem-xmx96 "$SHIPPED_ENV" "-XX:MaxRAM=768m -Xmx96m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -Xss512k"
  memory mem-xmx128 "$SHIPPED_ENV" "-XX:MaxRAM=768m -Xmx128m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -Xss512k"
  memory mem-xmx192 "$SHIPPED_ENV" "-XX:MaxRAM=768m -Xmx192m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -Xss512k"
  memory mem-xmx160-g1 "$SHIPPED_ENV" "-XX:MaxRAM=768m -Xmx160m -XX:+UseG1GC -XX:ReservedCodeCacheSize=64m -Xss512k"
fi

# the batch size the service reached on ship, for the group-commit anchor
ROWS=$(cd "$ROOT/bench" && python3 -c '
import sys
from versus_report import batch_rows
rows = batch_rows(sys.argv[1])
print(max(2, round(rows)) if rows else 8)' "$OUT/orderflow")
fresh_db versus_anchor "$TEMPLATE"
log "pgbench on the service's own statements ($POOL clients, ${PGBENCH_SECONDS}s each; batches of $ROWS)"
"$ROOT/bench/anchor.sh" versus_anchor pgbench-keyed keyed "$OUT" "$POOL" "$PGBENCH_SECONDS"
"$ROOT/bench/anchor.sh" versus_anchor pgbench-keyless keyless "$OUT" "$POOL" "$PGBENCH_SECONDS"
"$ROOT/bench/anchor.sh" versus_anchor pgbench-batch batch-keyed "$OUT" "$POOL" "$PGBENCH_SECONDS" "$ROWS"
"$ROOT/bench/anchor.sh" versus_anchor pgbench-batch-4-clients batch-keyed "$OUT" 4 "$PGBENCH_SECONDS" "$ROWS"
python3 "$ROOT/bench/versus_report.py" "$OUT" | tee "$OUT/summary.md"
