-- Durable provider commands: what the service owes a provider call for ("refund capture X of attempt Y"). Written in
-- the same statement as the decision that owes it (a CANCEL of a paid order, a capture after a cancel, a double
-- capture); a worker claims due commands (FOR UPDATE SKIP LOCKED, safe with several replicas) and calls the provider
-- with a key derived from the command id, so a retry after a timeout or a crash never refunds twice.
create table provider_commands (
    id                uuid        primary key,
    kind              text        not null check (kind in ('REFUND')),
    order_id          uuid        not null references orders (id),
    provider          text        not null,
    payment_reference text,
    capture_txn_id    text        not null,
    amount            bigint      not null,
    currency          char(3)     not null,
    state             text        not null check (state in ('PENDING', 'SENT', 'DONE', 'FAILED')),
    tries             integer     not null default 0,
    next_at           timestamptz not null,
    refund_id         text,
    last_outcome      text,
    created_at        timestamptz not null,
    updated_at        timestamptz not null,
    -- one refund command per capture, however often the decision that owes it is repeated
    constraint provider_commands_once unique (kind, provider, capture_txn_id)
);

create index provider_commands_due on provider_commands (next_at) where state in ('PENDING', 'SENT');
