#!/usr/bin/env bash
# The physical anchor: pgbench runs the service's own transition statement straight against PostgreSQL.
#
#   bench/anchor.sh DATABASE LABEL keyed|keyless|batch-keyed OUT_DIR [CLIENTS] [SECONDS] [ROWS]
#
# bench/sql/transition-<kind>.pgbench is the statement TransitionSql builds for a first-time SHIP (generated and
# pinned by BenchAnchorSqlTest); batch-keyed is its group-commit form (ARRAYS) moving ROWS orders per
# transaction (default 8), as the service sends it under load. Each pgbench client ships its own freshly seeded PAID orders one after the other,
# so every transaction is a real first-time move (the moved count is checked against the transactions). The orders
# are added to DATABASE (which the service has migrated) under customer c-anchor, with ids above every earlier
# anchor's. Writes OUT_DIR/LABEL.txt (pgbench's output) and appends "LABEL tps transactions moved rows" to
# OUT_DIR/anchor.tsv.
set -euo pipefail
db=${1:?database} label=${2:?label} kind=${3:?keyed or keyless} out=${4:?out dir}
clients=${5:-20} seconds=${6:-15} rows=${7:-8}
[ "$kind" = batch-keyed ] || rows=1
stride=20000                       # orders per client: more than one client moves in $seconds on a 2-core machine
sql=$(cd "$(dirname "$0")" && pwd)/sql/transition-$kind.pgbench
psql_db() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres -d "$db" "$@"; }

psql_db -c "set client_min_messages = warning" -c "create table if not exists bench_anchor_seeded (upto bigint not null)"
base=$(psql_db -Atc "select coalesce(max(upto), 1000000000) from bench_anchor_seeded")
upto=$((base + clients * stride))
psql_db <<SQL > /dev/null
insert into orders (id, customer_id, status, version, currency, amount, items, payment_provider, payment_txn_id,
                    paid_at, created_at, updated_at)
select ('00000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, 'c-anchor', 'PAID', 2, 'USD', 2999,
       '[{"sku": "SKU-1", "quantity": 2, "unitPrice": 1250}, {"sku": "SKU-2", "quantity": 1, "unitPrice": 499}]',
       'mockpay', 'txn-anchor-' || n, now(), now(), now()
from generate_series($base + 1, $upto) n;
insert into bench_anchor_seeded values ($upto);
vacuum analyze orders;
checkpoint;
SQL

now=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
expires=$(date -u -d '+30 days' +%Y-%m-%dT%H:%M:%S.%6NZ)
for attempt in 1 2 3; do
  # other test suites share max_connections: a refused connection is retried, not fatal
  pgbench -h 127.0.0.1 -U postgres -n -M prepared -c "$clients" -j 2 -T "$seconds" \
      -D base="$base" -D stride="$stride" -D i=0 -D rows="$rows" -D now="$now" -D event=SHIP -D source=anchor \
      -D actor=bench -D ev_event=SHIP -D ev_source=anchor -D ev_ce_source=/orderflow -D details='{"carrier":"DHL","trackingNumber":"TN-1"}' -D f_carrier=DHL -D f_tracking_number=TN-1 \
      -D f_shipped_at="$now" -D k_scope="operator:bench POST /orders/{id}/ship anchor" -D k_tier=ORDERS \
      -D k_fingerprint=db8092b51c0cae1fb191ded0f1634f6893dd580badf36ab8ee9be01170338901 \
      -D k_created="$now" -D k_expires="$expires" -f "$sql" "$db" > "$out/$label.txt" 2>&1 && break
  [ "$attempt" = 3 ] && { echo "pgbench $label failed: $(grep -m1 -i error "$out/$label.txt")" >&2; exit 1; }
  sleep 3
done
moved=$(psql_db -Atc "select count(*) from order_transitions t join orders o on o.id = t.order_id
    where t.source = 'anchor' and o.customer_id = 'c-anchor'
      and o.id >= ('00000000-0000-4000-8000-' || lpad(to_hex($base + 1), 12, '0'))::uuid
      and o.id <= ('00000000-0000-4000-8000-' || lpad(to_hex($upto), 12, '0'))::uuid")
printf '%s\t%s\t%s\t%s\t%s\n' "$label" "$(awk '/^tps/ {print int($3)}' "$out/$label.txt")" \
    "$(awk -F': ' '/actually processed/ {print $2}' "$out/$label.txt" | cut -d/ -f1)" "$moved" "$rows" >> "$out/anchor.tsv"
grep -E '^tps' "$out/$label.txt" | sed "s/^/    $label: /"
