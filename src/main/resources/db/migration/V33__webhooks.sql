-- Webhooks out: endpoints operators register, one delivery per (endpoint, event) owed, and every attempt's outcome.
-- Rows are marked, never deleted: a deleted endpoint keeps its log; a delivery ends SUCCEEDED, FAILED or CANCELLED.

-- status: enabled | disabled (after failing for events.webhooks.retry.give-up-after, or never) | deleted.
-- types: the CloudEvent types it receives, null for all. previous_secret signs too until previous_secret_until (a
-- rotation's overlap). failing_since: the first failed attempt since its last success, null while it keeps up.
create table webhook_endpoints (
    id                    uuid        primary key,
    url                   text        not null,
    types                 text[],
    description           text,
    secret                text        not null,
    previous_secret       text,
    previous_secret_until timestamptz,
    status                text        not null check (status in ('enabled', 'disabled', 'deleted')),
    failing_since         timestamptz,
    disabled_reason       text,
    created_at            timestamptz not null,
    updated_at            timestamptz not null
);

create index webhook_endpoints_enabled on webhook_endpoints (id) where status = 'enabled';

-- One row per event owed to an endpoint, written by the relay in the transaction that publishes the event. body is
-- the CloudEvent JSON as sent (every attempt signs the same bytes); seq the outbox's, so one order's deliveries to one
-- endpoint go out in their order. attempts counts attempts started; next_attempt_at is when the next may start (a
-- worker that claims a delivery pushes it past its send's deadline, so a crash leaves it owed, not lost).
create table webhook_deliveries (
    endpoint_id     uuid        not null references webhook_endpoints (id),
    event_id        uuid        not null,
    aggregateid     text        not null,
    seq             bigint      not null,
    type            text        not null,
    body            text        not null,
    status          text        not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED')),
    attempts        int         not null default 0,
    next_attempt_at timestamptz not null,
    created_at      timestamptz not null,
    updated_at      timestamptz not null,
    primary key (endpoint_id, event_id)
);

create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'PENDING';
create index webhook_deliveries_order on webhook_deliveries (endpoint_id, aggregateid, seq) where status = 'PENDING';

-- The delivery log: one row per attempt made, automatic or asked for by an operator.
create table webhook_attempts (
    id          bigint      generated always as identity primary key,
    endpoint_id uuid        not null references webhook_endpoints (id),
    event_id    uuid        not null,
    attempt     int         not null,
    status_code int,
    error       text,
    duration_ms int         not null,
    manual      boolean     not null,
    at          timestamptz not null
);

create index webhook_attempts_by_endpoint on webhook_attempts (endpoint_id, id);
