-- Orders and their append-only history. Every status change is one compare-and-set on orders
-- (WHERE id = ? AND status = ? AND version = ?) plus one history row, in one statement.
create table orders (
    id              uuid        primary key,
    customer_id     text        not null,
    status          text        not null,
    version         bigint      not null,
    currency        char(3)     not null,
    amount          bigint      not null check (amount >= 0),
    items           jsonb       not null,
    payment_provider text,
    payment_txn_id  text,
    paid_at         timestamptz,
    refunded_at     timestamptz,
    carrier         text,
    tracking_number text,
    shipped_at      timestamptz,
    delivered_at    timestamptz,
    cancel_reason   text,
    cancelled_at    timestamptz,
    created_at      timestamptz not null,
    updated_at      timestamptz not null,
    constraint orders_status_known check (status in ('CREATED', 'PAYMENT_PENDING', 'PAID', 'SHIPPED', 'DELIVERED',
                                                     'CANCELLED', 'REFUND_PENDING', 'REFUNDED'))
);

create index orders_by_customer on orders (customer_id, id);
create index orders_by_status on orders (status, id);

create table order_transitions (
    order_id    uuid        not null references orders (id),
    seq         integer     not null,
    event       text        not null,
    from_status text        not null,
    to_status   text        not null,
    at          timestamptz not null,
    source      text        not null,
    request_key text,
    primary key (order_id, seq)
);

-- The dedup record of every keyed request and every provider event. The primary key (scope, idem_key) is the
-- correctness floor: it is written in the same statement as the business change it records.
create table idempotency_keys (
    scope                 text        not null,
    idem_key              text        not null,
    tier                  text        not null,
    state                 text        not null check (state in ('PENDING', 'DONE', 'FAILED', 'EXPIRED')),
    fingerprint           text        not null,
    order_id              uuid,
    response_status       integer,
    response_content_type text,
    response_headers      jsonb,
    response_body         bytea,
    holder                text,
    locked_until          timestamptz,
    created_at            timestamptz not null,
    expires_at            timestamptz not null,
    expired_at            timestamptz,
    primary key (scope, idem_key)
);

create index idempotency_keys_due on idempotency_keys (expires_at) where state <> 'EXPIRED';
create index idempotency_keys_expired on idempotency_keys (expired_at) where state = 'EXPIRED';
create index idempotency_keys_by_order on idempotency_keys (order_id);
