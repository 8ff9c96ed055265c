-- One-time submit tokens (POST /idempotency-tokens). consumed_scope binds a token to the one request it may key.
create table submit_tokens (
    token          text        primary key,
    caller         text        not null,
    issued_at      timestamptz not null,
    expires_at     timestamptz not null,
    consumed_scope text,
    consumed_at    timestamptz
);

create index submit_tokens_expiry on submit_tokens (expires_at);
