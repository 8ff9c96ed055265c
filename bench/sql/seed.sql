-- Seeds orderflow_bench for the runs that need existing orders (the read mix, the wrk peer figures and the
-- pgbench anchor). Run by bench/run.sh with psql -v paid=<n> -v shipped=<n>, after the service has migrated the
-- schema. Order number n has the id 00000000-0000-4000-8000-<n as 12 hex digits> (see Seeded.java), belongs to
-- the bench's customer c-bench, and has the history the service would have written for it:
--   1..:paid                    PAID     (version 2: PAY, PAYMENT_SUCCEEDED)
--   :paid+1..:paid+:shipped     SHIPPED  (version 3: PAY, PAYMENT_SUCCEEDED, SHIP)
\set ON_ERROR_STOP on

truncate order_transitions, idempotency_keys, payment_anomalies, submit_tokens, orders;

insert into orders (id, customer_id, status, version, currency, amount, items, payment_provider, payment_txn_id,
                    paid_at, carrier, tracking_number, shipped_at, created_at, updated_at)
select ('00000000-0000-4000-8000-' || lpad(to_hex(n), 12, '0'))::uuid, 'c-bench',
       case when n <= :paid then 'PAID' else 'SHIPPED' end,
       case when n <= :paid then 2 else 3 end,
       'EUR', 2500, '[{"sku": "BENCH-1", "quantity": 2, "unitPrice": 1250}]'::jsonb,
       'mockpay', 'txn_seed_' || n, now(),
       case when n <= :paid then null else 'DHL' end,
       case when n <= :paid then null else 'TRK-SEED-' || n end,
       case when n <= :paid then null else now() end,
       now(), now()
from generate_series(1, :paid + :shipped) n;

insert into order_transitions (order_id, seq, event, from_status, to_status, at, source, request_key)
select o.id, s.seq, s.event, s.from_status, s.to_status, now(), s.source, null
from orders o
join (values (1, 'PAY', 'CREATED', 'PAYMENT_PENDING', 'api'),
             (2, 'PAYMENT_SUCCEEDED', 'PAYMENT_PENDING', 'PAID', 'mockpay'),
             (3, 'SHIP', 'PAID', 'SHIPPED', 'api')) s (seq, event, from_status, to_status, source)
  on s.seq <= o.version;

vacuum analyze orders;
vacuum analyze order_transitions;
vacuum analyze idempotency_keys;
