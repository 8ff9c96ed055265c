-- Payment attempts: every PAY starts one, written in the same statement as the order's move. An order knows its
-- current attempt (orders.payment_attempt_id); provider events are matched to an attempt by the provider's reference
-- (Stripe PaymentIntent id, WeChat Pay out_trade_no), never by an order id in their body.
create table payment_attempts (
    id         uuid        primary key,
    order_id   uuid        not null references orders (id),
    provider   text        not null,
    reference  text,
    amount     bigint      not null,
    currency   char(3)     not null,
    state      text        not null check (state in ('PENDING', 'CAPTURED', 'FAILED', 'REPLACED')),
    created_at timestamptz not null,
    updated_at timestamptz not null,
    constraint payment_attempts_reference unique (provider, reference)
);

create index payment_attempts_by_order on payment_attempts (order_id);
create index payment_attempts_pending on payment_attempts (updated_at) where state = 'PENDING';

alter table orders add column payment_attempt_id uuid;

-- Money a provider captured, one row per provider transaction (Stripe charge, WeChat Pay transaction_id): the
-- primary key makes a transaction id belong to exactly one attempt, so a reuse on another order is refused.
-- REFUND_OWED is a capture on an order already paid by another one (a double capture).
create table payment_captures (
    provider     text        not null,
    txn_id       text        not null,
    attempt_id   uuid        references payment_attempts (id),
    order_id     uuid        not null references orders (id),
    amount       bigint      not null,
    currency     char(3)     not null,
    state        text        not null check (state in ('CAPTURED', 'REFUND_OWED', 'REFUNDED')),
    captured_at  timestamptz not null,
    refunded_at  timestamptz,
    primary key (provider, txn_id)
);

create index payment_captures_by_order on payment_captures (order_id);

-- events that name no order we know (an unknown provider reference) are anomalies too
alter table payment_anomalies alter column order_id drop not null;
