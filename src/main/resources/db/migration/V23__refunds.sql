-- Refunds as an operation of their own: one row per refund asked for (an operator's, or a CANCEL of a paid order's
-- refund of what was left), each sent as exactly one provider command whose id is the refund's id (so its provider
-- key and metadata derive from the refund). A refund is PENDING until its provider says SUCCEEDED or FAILED.
create table refunds (
    id                 uuid        primary key,
    order_id           uuid        not null references orders (id),
    provider           text        not null,
    capture_txn_id     text        not null,
    amount             bigint      not null check (amount > 0),
    currency           char(3)     not null,
    reason             text,
    issued_by          text        not null,
    status             text        not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
    provider_refund_id text,
    failure_reason     text,
    created_at         timestamptz not null,
    updated_at         timestamptz not null
);

create index refunds_by_order on refunds (order_id, id);
create index refunds_by_status on refunds (status, id);

-- What a capture has promised back: the sum of its refunds PENDING or SUCCEEDED. A refund is recorded only by the
-- statement that raises it, where it still fits (the row's lock orders concurrent refunds; each re-reads the sum),
-- and the check makes anything else fail rather than promise more than was captured.
alter table payment_captures add column refund_held bigint not null default 0;
alter table payment_captures add constraint payment_captures_refund_held
    check (refund_held >= 0 and refund_held <= amount);

-- The sum of the order's SUCCEEDED refunds, shown as the order's refundedAmount.
alter table orders add column refunded_amount bigint not null default 0;

-- One command per refund (its id is the refund's), no longer one per capture; a double capture's refund command,
-- which no refund row stands behind, is still written once, by the statement that records that capture.
alter table provider_commands drop constraint provider_commands_once;

-- Refunds in flight before this migration (a cancelled paid order's refund command) appear as refunds.
insert into refunds (id, order_id, provider, capture_txn_id, amount, currency, reason, issued_by, status,
                     provider_refund_id, failure_reason, created_at, updated_at)
select c.id, c.order_id, c.provider, c.capture_txn_id, c.amount, c.currency, 'order cancelled', 'orderflow',
       case when o.status = 'REFUNDED' then 'SUCCEEDED' when c.state = 'FAILED' then 'FAILED' else 'PENDING' end,
       c.refund_id, case when c.state = 'FAILED' then c.last_outcome end, c.created_at, c.updated_at
from provider_commands c
join orders o on o.id = c.order_id and o.payment_provider = c.provider and o.payment_txn_id = c.capture_txn_id
where c.kind = 'REFUND' and o.status in ('REFUND_PENDING', 'REFUNDED');

update payment_captures k set refund_held = least(k.amount, r.amount)
from refunds r where r.status <> 'FAILED' and k.provider = r.provider and k.txn_id = r.capture_txn_id;

update orders o set refunded_amount = o.amount where o.status = 'REFUNDED';
