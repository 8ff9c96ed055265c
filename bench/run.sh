#!/usr/bin/env bash
# The orderflow benchmark, whole, on one machine, in one run (issue 7; results explained in docs/benchmarks.md).
#
#   bench/run.sh           the full comparison (~10 minutes): builds the service if its jar is stale, starts it
#                          twice (Redis up on :18080, Redis down on :18081) against PostgreSQL db orderflow_bench
#                          and Redis db 1, warms both up, then runs side by side:
#                            pgbench anchor (the SQL of one transition) and redis-benchmark,
#                            S1 lifecycle: stairs to saturation, then a fixed rate at half of it,
#                            S2 duplicate storm: stairs, then half of its saturation,
#                            S4 read mix: stairs,
#                            wrk figures (ship, same-key retry, keyless duplicate ship, GET; 2 threads, 32 conns),
#                            S3 duplicate storm with Redis down: stairs,
#                          prints a summary table (also bench/target/results/summary.md) and stops the services;
#                          then bench/versus.sh: the peer and orderflow with the peer's driver, in this same run
#                          (BENCH_VERSUS=0 skips it).
#                          Gatling's HTML reports: bench/target/gatling/<simulation>-<time>/index.html.
#   bench/run.sh --smoke   CI: compile the bench, start the service, 10 s of scenario 1 at a low rate; exits
#                          non-zero if the service does not start or more than 5% of the requests fail. Like the
#                          tests it shares nothing: a free port, its own database orderflow_smoke_<pid> (dropped
#                          on exit) and its own redis-server on a free port.
#
# Needs: Java 17, PostgreSQL on 127.0.0.1:5432 (trust, user postgres); for the full run Redis on 127.0.0.1:6379,
# pgbench, redis-benchmark, wrk (installed with apt-get when missing) and python3; for the smoke redis-server and
# python3. All load goes to 127.0.0.1.
# Settings: BENCH_* variables below.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/bench
TARGET=$BENCH/target
RESULTS=$TARGET/results

DB=${BENCH_DB:-orderflow_bench}
REDIS_DB=${BENCH_REDIS_DB:-1}                       # never db 0: other test suites FLUSHDB it
PORT=${BENCH_PORT:-18080}                           # the service with Redis
PORT_NO_REDIS=${BENCH_PORT_NO_REDIS:-18081}         # the same service with Redis pointed at a dead port
DEAD_REDIS_PORT=${BENCH_DEAD_REDIS_PORT:-16399}     # nothing may listen there (checked)
XMX=${BENCH_XMX:-160m}
# Serial GC: what the JVM picks by itself in a container under 1.8 GB; G1 kept ~40 MB of its own structures
# (NMT) for this small heap, with no throughput gain here (docs/benchmarks.md).
GC=${BENCH_GC:--XX:+UseSerialGC}
POOL=20                                             # quarkus.datasource.reactive.max-size of the service
LEVEL_SECONDS=${BENCH_LEVEL_SECONDS:-8}             # one step of a stairs run
FACTOR=${BENCH_FACTOR:-1.3}                         # each step offers this much more than the last
MAX_LEVELS=${BENCH_MAX_LEVELS:-20}                 # a stairs run stops at saturation; this is a bound
FIXED_SECONDS=${BENCH_FIXED_SECONDS:-25}
WRK_SECONDS=${BENCH_WRK_SECONDS:-10}
PGBENCH_SECONDS=${BENCH_PGBENCH_SECONDS:-15}
S1_START=${BENCH_S1_START:-8}                       # lifecycles/s of the first S1 step
JFR=${BENCH_JFR:-0}                                 # 1: record a JFR profile of the Redis-up service
QUIET_LOAD=${BENCH_QUIET_LOAD:-}                    # wait (up to BENCH_QUIET_WAIT s) for a 1-min load below this
QUIET_WAIT=${BENCH_QUIET_WAIT:-900}

# Seeded orders (bench/sql/seed.sql); order n has id 00000000-0000-4000-8000-<n in hex>, see Seeded.java.
PAID=300000 SHIPPED=10000
ANCHOR_ORDERS=20000                                 # pgbench moves orders 1..20000 (they stay PAID)
RETRY_ORDER=50000                                   # the order of the same-key retry
WRK_SHIP_FROM=100001 WRK_SHIP_TO=200000             # shipped once each by wrk
MIX_SHIP_FROM=200001 MIX_SHIP_TO=300000             # shipped once each by the read mix
DUP_FROM=$((PAID + 1)) DUP_TO=$((PAID + SHIPPED))   # already SHIPPED: keyless duplicate ships

SMOKE=0
case "${1:-}" in
  --smoke) SMOKE=1 ;;
  "") ;;
  *) echo "usage: $0 [--smoke]" >&2; exit 2 ;;
esac

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "FAILED: $*"; exit 1; }
psql_db() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d "$DB" "$@"; }

# --- processes this script starts, and only those, are stopped on exit (by pid) ---
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

preflight() {
  command -v java >/dev/null || die "java is missing"
  pg_isready -q -h 127.0.0.1 -p 5432 || die "PostgreSQL is not up on 127.0.0.1:5432"
  if [ "$SMOKE" = 1 ]; then
    local tool
    for tool in redis-server redis-cli python3; do command -v "$tool" >/dev/null || die "$tool is missing"; done
    return
  fi
  redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null | grep -q PONG || die "Redis is not up on 127.0.0.1:6379"
  local tool
  # the Debian packages the full run uses are installed by it when missing
  for tool in pgbench:postgresql-contrib redis-benchmark:redis-tools wrk:wrk; do
    command -v "${tool%%:*}" >/dev/null && continue
    log "installing ${tool#*:}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${tool#*:}" > /dev/null \
      || die "${tool%%:*} is missing and could not be installed (apt-get install -y ${tool#*:})"
  done
  command -v python3 >/dev/null || die "python3 is missing"
  local port
  for port in "$PORT" "$PORT_NO_REDIS"; do
    ! curl -s -o /dev/null "http://127.0.0.1:$port/" || die "port $port is taken; set BENCH_PORT/BENCH_PORT_NO_REDIS"
  done
  ! redis-cli -p "$DEAD_REDIS_PORT" ping >/dev/null 2>&1 || die "something listens on $DEAD_REDIS_PORT"
  if ! psql -X -h 127.0.0.1 -U postgres -d postgres -Atc "select 1 from pg_database where datname = '$DB'" \
      | grep -q 1; then
    log "creating database $DB"
    createdb -h 127.0.0.1 -U postgres "$DB"
  fi
}

build_service() {
  local app_jar
  app_jar=$(ls "$ROOT"/target/quarkus-app/app/*.jar 2>/dev/null | head -n 1 || true)
  if [ -z "$app_jar" ] || [ -n "$(find "$ROOT/src/main" "$ROOT/pom.xml" -newer "$app_jar" -print -quit)" ]; then
    log "packaging the service (./mvnw package -DskipTests)"
    (cd "$ROOT" && ./mvnw -B -q package -DskipTests)
  else
    log "service jar is up to date"
  fi
}

build_bench() {
  log "compiling the bench and running its unit tests"
  (cd "$ROOT" && ./mvnw -B -q -f bench/pom.xml test) || die "the bench does not compile or its tests fail"
}

# Health and metrics are on the service's management interface, a port of its own: MGMT_OF[port] is the one
# start_service gave the service listening on port.
declare -A MGMT_OF

# start_service NAME PORT REDIS_URL [java options...] — the packaged jar, prod profile, env configuration only.
start_service() {
  local name=$1 port=$2 redis=$3
  shift 3
  [ -n "${MGMT_OF[$port]:-}" ] || MGMT_OF[$port]=$(free_port)
  log "starting $name on :$port (-Xmx$XMX $GC, Redis $redis)"
  (cd "$RESULTS" && exec env \
      MALLOC_ARENA_MAX=2 \
      QUARKUS_HTTP_PORT="$port" \
      QUARKUS_MANAGEMENT_PORT="${MGMT_OF[$port]}" \
      QUARKUS_DATASOURCE_REACTIVE_URL="postgresql://127.0.0.1:5432/$DB" \
      QUARKUS_DATASOURCE_JDBC_URL="jdbc:postgresql://127.0.0.1:5432/$DB" \
      QUARKUS_REDIS_HOSTS="$redis" \
      PAYMENTS_PROVIDERS_MOCKPAY_SECRETS=whsec_dev_mockpay_not_a_secret \
      MP_JWT_VERIFY_PUBLICKEY_LOCATION=dev/publicKey.pem \
      MP_JWT_VERIFY_ISSUER=https://orderflow.dev/dev-issuer \
      java "-Xmx$XMX" $GC "$@" -jar "$ROOT/target/quarkus-app/quarkus-run.jar") > "$RESULTS/$name.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  echo "$pid" > "$RESULTS/$name.pid"
  # resident memory once a second, for the RSS figure
  (while kill -0 "$pid" 2>/dev/null; do
     printf '%s\t%s\n' "$(date +%s)" "$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)"
     sleep 1
   done) > "$RESULTS/$name-rss.tsv" &
  PIDS+=("$!")
}

await_service() {
  local name=$1 port=$2 pid
  pid=$(cat "$RESULTS/$name.pid")
  for _ in $(seq 1 240); do
    kill -0 "$pid" 2>/dev/null || { tail -n 30 "$RESULTS/$name.log"; die "$name exited during start-up"; }
    if curl -sf -o /dev/null "http://127.0.0.1:${MGMT_OF[$port]}/q/health/ready"; then
      log "$name is ready"
      return
    fi
    sleep 0.5
  done
  tail -n 30 "$RESULTS/$name.log"
  die "$name did not become ready in 120 s"
}

# An overloaded stairs step can still run the service out of heap despite its admission control
# (orders.database.max-pending bounds only the statements waiting for the database).
# Before each phase that needs it, a dead service is noted in phases.tsv and started again.
ensure_service() {
  local name=$1 port=$2 redis=$3
  curl -sf -o /dev/null --max-time 5 "http://127.0.0.1:${MGMT_OF[$port]:-$port}/q/health/live" && return 0
  log "$name is down ($(grep -c OutOfMemoryError "$RESULTS/$name.log" || true) OutOfMemoryError in its log); restarting it"
  mv "$RESULTS/$name.log" "$RESULTS/$name-died-$(date +%H%M%S).log"
  phase "restart-$name"
  start_service "$name" "$port" "$redis"
  await_service "$name" "$port"
}

# After a stairs run pushed the service past saturation: wait until nothing is queued for the database any more and
# give it a few quiet seconds, so that the next measurement does not start inside the previous overload.
cool_down() {
  local port=$1 pending
  for _ in $(seq 1 60); do
    pending=$(curl -s --max-time 2 "http://127.0.0.1:${MGMT_OF[$port]}/q/metrics" | awk '/^orderflow_db_pending / {print int($2)}')
    [ "${pending:-1}" = 0 ] && break
    sleep 0.5
  done
  sleep 5
}

phase() { # marks where a phase starts, with the machine's load: other people's builds share it
  printf '%s\t%s\t%s\n' "$1" "$(date +%s)" "$(cut -d' ' -f1-3 /proc/loadavg)" >> "$RESULTS/phases.tsv"
  log "$1 (load average $(cut -d' ' -f1-3 /proc/loadavg))"
}

# gatling LABEL SIMULATION PORT [-Dbench.x=y ...] — one Gatling run; its exit code is returned, never fatal here.
gatling() {
  local label=$1 simulation=$2 port=$3
  shift 3
  phase "$label"
  local rc=0
  (cd "$ROOT" && ./mvnw -B -q -f bench/pom.xml gatling:test \
      -Dgatling.simulationClass="io.orderflow.bench.$simulation" \
      -Dbench.label="$label" -Dbench.results="$RESULTS" -Dbench.baseUrl="http://127.0.0.1:$port" -Dbench.managementUrl="http://127.0.0.1:${MGMT_OF[$port]}" \
      -Dbench.customerToken="$CUSTOMER" -Dbench.operatorToken="$OPERATOR" "$@") \
      > "$RESULTS/$label-gatling.log" 2>&1 || rc=$?
  local report
  report=$(grep -o 'file://[^ ]*index.html' "$RESULTS/$label-gatling.log" | tail -n 1 | sed 's#^file://##' || true)
  printf '%s\t%s\t%s\t%s\n' "$label" "$simulation" "$rc" "$report" >> "$RESULTS/runs.tsv"
  grep -E 'percentage of failed|request count|99th percentile' "$RESULTS/$label-gatling.log" | sed 's/^/    /' \
    | head -n 4 || true
  return "$rc"
}

# saturation LABEL COLUMN PER_USER — users/s the service actually served at its best step (from the meter).
saturation() {
  python3 "$BENCH/summarize.py" saturation "$RESULTS/$1-levels.tsv" "$2" "$3"
}

mint_tokens() {
  CUSTOMER=$("$ROOT/dev/mint-token.sh" customer c-bench 7200)
  OPERATOR=$("$ROOT/dev/mint-token.sh" operator ops-bench 7200)
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The smoke is part of the test command: like the tests it touches nothing that is not its own and takes no fixed
# port, so two builds can run it at once. Its own database (dropped on exit), its own redis-server on a free port.
smoke_services() {
  PORT=$(free_port)
  DB=orderflow_smoke_$$
  local redis_port redis_dir
  redis_port=$(free_port)
  redis_dir=$TARGET/smoke-redis
  mkdir -p "$redis_dir"
  redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no --dir "$redis_dir" \
      --logfile "$redis_dir/redis.log" &
  PIDS+=($!)
  SMOKE_REDIS="redis://127.0.0.1:$redis_port"
  createdb -h 127.0.0.1 -U postgres "$DB"
  trap 'cleanup; dropdb -h 127.0.0.1 -U postgres --if-exists "$DB" 2>/dev/null || true' EXIT
  for _ in $(seq 1 50); do redis-cli -p "$redis_port" ping 2>/dev/null | grep -q PONG && return; sleep 0.2; done
  die "the smoke's redis-server did not start (see $redis_dir/redis.log)"
}

smoke() {
  rm -rf "$RESULTS"
  mkdir -p "$RESULTS"
  preflight
  smoke_services
  build_service
  mint_tokens
  # the service starts while the bench compiles: on 2 cores the overlap still saves most of a start-up
  start_service service "$PORT" "$SMOKE_REDIS"
  build_bench
  await_service service "$PORT"
  gatling smoke LifecycleSimulation "$PORT" -Dbench.load=fixed -Dbench.rate=4 -Dbench.seconds=10 \
      -Dbench.maxKoPercent=5 || die "the smoke run failed (see $RESULTS/smoke-gatling.log)"
  log "smoke passed: $(grep -o 'file://[^ ]*index.html' "$RESULTS/smoke-gatling.log" | tail -n 1)"
}

anchor() { # the service's own transition statement, straight to PostgreSQL, at the service's pool size
  phase "$1"
  "$BENCH/anchor.sh" "$DB" "$1" keyed "$RESULTS" "$POOL" "$PGBENCH_SECONDS" || log "no anchor figure for $1"
}

redis_bench() {
  phase redis-benchmark
  redis-benchmark -h 127.0.0.1 -p 6379 --dbnum "$REDIS_DB" -t set,get -n 100000 -q > "$RESULTS/redis-benchmark-c50.txt" 2>&1
  redis-benchmark -h 127.0.0.1 -p 6379 --dbnum "$REDIS_DB" -t set,get -n 100000 -c 32 -q \
      > "$RESULTS/redis-benchmark-c32.txt" 2>&1
  tr '\r' '\n' < "$RESULTS/redis-benchmark-c32.txt" | grep -E '^(SET|GET):' | tail -n 2 | sed 's/^/    /'
}

# wrk_run LABEL SCRIPT [ENV=VALUE ...] — 2 threads, 32 connections: how the peer was measured (closed model).
wrk_run() {
  local label=$1 script=$2
  shift 2
  phase "$label"
  (cd "$ROOT" && env WRK_THREADS=2 CUSTOMER="$CUSTOMER" OPERATOR="$OPERATOR" "$@" \
      wrk -t2 -c32 -d"${WRK_SECONDS}s" --latency -s "bench/wrk/$script" "http://127.0.0.1:$PORT") \
      > "$RESULTS/$label.txt" 2>&1 || die "wrk $label failed: $(tail -n 5 "$RESULTS/$label.txt")"
  grep WRK_RESULT "$RESULTS/$label.txt" | sed 's/^/    /'
}

# The machine is shared: optionally wait for other people's builds to calm down before measuring.
wait_for_quiet() {
  [ -n "$QUIET_LOAD" ] || return 0
  local waited=0
  while python3 -c "import sys; sys.exit(0 if float(open('/proc/loadavg').read().split()[0]) >= $QUIET_LOAD else 1)"; do
    if [ "$waited" -ge "$QUIET_WAIT" ]; then
      log "load average still $(cut -d' ' -f1 /proc/loadavg) after ${QUIET_WAIT}s; measuring anyway"
      return 0
    fi
    [ $((waited % 60)) = 0 ] && log "waiting for a 1-min load average below $QUIET_LOAD (now $(cut -d' ' -f1 /proc/loadavg))"
    sleep 5
    waited=$((waited + 5))
  done
}

full() {
  rm -rf "$RESULTS" "$TARGET/gatling"
  mkdir -p "$RESULTS"
  preflight
  build_service
  build_bench
  mint_tokens
  wait_for_quiet
  {
    echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "cores=$(nproc)"
    echo "memory=$(free -g | awk '/^Mem/ {print $2}') GiB"
    echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
    echo "java=$(java -version 2>&1 | head -n 1)"
    echo "postgres=$(psql -X -h 127.0.0.1 -U postgres -d "$DB" -Atc 'show server_version')"
    echo "redis=$(redis-cli info server | tr -d '\r' | awk -F: '/^redis_version/ {print $2}')"
    echo "wrk=$(wrk -v 2>&1 | head -n 1)"
    echo "xmx=$XMX"
    echo "gc=$GC MALLOC_ARENA_MAX=2"
    echo "pool=$POOL"
    echo "level_seconds=$LEVEL_SECONDS"
    echo "factor=$FACTOR"
  } > "$RESULTS/environment.properties"

  local java_opts=()
  [ "$JFR" = 1 ] && java_opts=("-XX:StartFlightRecording=filename=$RESULTS/service.jfr,settings=profile")
  redis-cli -n "$REDIS_DB" flushdb >/dev/null
  start_service service "$PORT" "redis://127.0.0.1:6379/$REDIS_DB" "${java_opts[@]}"
  start_service service-no-redis "$PORT_NO_REDIS" "redis://127.0.0.1:$DEAD_REDIS_PORT/$REDIS_DB"
  await_service service "$PORT"
  await_service service-no-redis "$PORT_NO_REDIS"
  python3 "$BENCH/cpu_sampler.py" "$RESULTS/cpu.tsv" "$DB" "$RESULTS/service.pid" "$RESULTS/service-no-redis.pid" &
  PIDS+=("$!")

  phase seed
  psql_db -v paid="$PAID" -v shipped="$SHIPPED" -f "$BENCH/sql/seed.sql" > "$RESULTS/seed.txt" 2>&1 \
    || die "seeding failed: $(tail -n 5 "$RESULTS/seed.txt")"
  # statistics and visibility map now, so that autovacuum does not wake up on the fresh rows during a measurement
  psql_db -c "vacuum analyze" -c checkpoint >> "$RESULTS/seed.txt" 2>&1

  # Warm-up: JIT-compile the transition and duplicate paths of both services, both at once (figures unused;
  # the stairs runs start low, which warms the rest).
  gatling warmup DuplicateStormSimulation "$PORT" -Dbench.load=fixed -Dbench.rate=3 -Dbench.seconds=15 \
      -Dbench.maxKoPercent=100 &
  local warming=$!
  gatling warmup-no-redis DuplicateStormSimulation "$PORT_NO_REDIS" -Dbench.load=fixed -Dbench.rate=2 \
      -Dbench.seconds=15 -Dbench.maxKoPercent=100 || true
  wait "$warming" || true

  # The anchor just before and just after scenario 1, so that the ratio does not hinge on one noisy moment.
  anchor pgbench-before
  redis_bench

  # every measured run starts with its own warm-up (see Load.java: the fresh Gatling JVM needs it most)
  local stairs=(-Dbench.load=stairs -Dbench.factor="$FACTOR" -Dbench.levels="$MAX_LEVELS"
                -Dbench.levelSeconds="$LEVEL_SECONDS" -Dbench.warmupSeconds="$LEVEL_SECONDS")
  local fixed=(-Dbench.load=fixed -Dbench.seconds="$FIXED_SECONDS" -Dbench.warmupSeconds="$LEVEL_SECONDS")
  gatling s1-stairs LifecycleSimulation "$PORT" "${stairs[@]}" -Dbench.rate="$S1_START" || true
  local s1 half1
  s1=$(saturation s1-stairs good_per_s 5)
  half1=$(python3 -c "print(round(max($s1 / 2, 1), 1))")
  log "S1 saturated at $s1 lifecycles/s; fixed run at $half1"
  cool_down "$PORT"
  gatling s1-half LifecycleSimulation "$PORT" "${fixed[@]}" -Dbench.rate="$half1" || true
  anchor pgbench-after

  # The peer figures while the service is healthy, before the runs that push it past saturation. GET is the one
  # path scenario 1 has not warmed: a few seconds of it first, not recorded.
  (cd "$ROOT" && env CUSTOMER="$CUSTOMER" READ_FROM=1 READ_TO="$DUP_TO" \
      wrk -t2 -c32 -d5s -s bench/wrk/get.lua "http://127.0.0.1:$PORT" > /dev/null 2>&1) || true
  wrk_run wrk-ship ship.lua SHIP_FROM="$WRK_SHIP_FROM" SHIP_TO="$WRK_SHIP_TO"
  wrk_run wrk-same-key-retry same-key-retry.lua ORDER="$RETRY_ORDER" KEY="wrk-retry-$(date +%s)"
  wrk_run wrk-keyless-duplicate-ship keyless-duplicate-ship.lua DUP_FROM="$DUP_FROM" DUP_TO="$DUP_TO"
  wrk_run wrk-get get.lua READ_FROM=1 READ_TO="$DUP_TO"

  local s2_start s2 half2
  s2_start=$(python3 -c "print(round(max($s1 * 0.05, 0.5), 1))")
  ensure_service service "$PORT" "redis://127.0.0.1:6379/$REDIS_DB"
  gatling s2-stairs DuplicateStormSimulation "$PORT" "${stairs[@]}" -Dbench.rate="$s2_start" || true
  s2=$(saturation s2-stairs good_per_s 25)
  half2=$(python3 -c "print(round(max($s2 / 2, 0.5), 1))")
  log "S2 saturated at $s2 orders/s (25 requests each); fixed run at $half2"
  ensure_service service "$PORT" "redis://127.0.0.1:6379/$REDIS_DB"
  cool_down "$PORT"
  gatling s2-half DuplicateStormSimulation "$PORT" "${fixed[@]}" -Dbench.rate="$half2" || true

  ensure_service service "$PORT" "redis://127.0.0.1:6379/$REDIS_DB"
  gatling s4-stairs ReadMixSimulation "$PORT" "${stairs[@]}" -Dbench.rate="$(python3 -c "print(round($s1 * 2.5, 1))")" \
      -Dbench.readFrom=1 -Dbench.readTo="$DUP_TO" -Dbench.shipFrom="$((MIX_SHIP_FROM + 5000))" \
      -Dbench.shipTo="$MIX_SHIP_TO" || true


  gatling s3-stairs DuplicateStormSimulation "$PORT_NO_REDIS" "${stairs[@]}" \
      -Dbench.rate="$(python3 -c "print(round(max($s2_start / 2, 0.5), 1))")" || true
  phase done

  # how many anchor transactions really moved their order (a lost CAS race moves nothing)
  psql_db -Atc "select count(*) from order_transitions where source = 'anchor'" > "$RESULTS/anchor-moved.txt"
  python3 "$BENCH/summarize.py" report "$RESULTS" | tee "$RESULTS/summary.md"

  # the peer, in the same run, after this run's services are stopped (bench/target/versus/summary.md)
  cleanup
  PIDS=()
  if [ "${BENCH_VERSUS:-1}" = 1 ]; then
    "$BENCH/versus.sh" && cat "$ROOT/bench/target/versus/summary.md" >> "$RESULTS/summary.md"
  fi
}

if [ "$SMOKE" = 1 ]; then
  smoke
else
  full
fi
