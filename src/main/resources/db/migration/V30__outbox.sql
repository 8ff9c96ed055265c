-- The transactional outbox: one row per event, inserted by the same statement as the change it reports (the
-- transition's CTE, the create statement). Columns id, aggregatetype, aggregateid, type and payload are the Debezium
-- outbox event router's defaults, so the table can be captured as it is (docs/events.md); the rest are ours.
--   seq           insertion order; the relay publishes the events of one aggregate (an order) in this order
--   position      the feed's cursor, assigned by the relay when it publishes, in commit order of the relay's own
--                 transactions (under an advisory lock), so a feed reader never skips a row that committed late
--   published_at  null until the relay has put the event in the Redis Stream
create table outbox (
    id            uuid        primary key,
    aggregatetype text        not null,
    aggregateid   text        not null,
    type          text        not null,
    payload       jsonb       not null,
    seq           bigint      generated always as identity,
    position      bigint      unique,
    created_at    timestamptz not null,
    published_at  timestamptz,
    constraint outbox_published_has_position check ((position is null) = (published_at is null))
);

create index outbox_unpublished on outbox (seq) where published_at is null;
create index outbox_unpublished_by_aggregate on outbox (aggregateid, seq) where published_at is null;
create index outbox_published on outbox (published_at) where published_at is not null;

create sequence outbox_position;

-- A timestamp as the API's JSON writes it (Java's Instant.toString: UTC, 'Z', the fraction in groups of three digits
-- and absent when zero), so an event's snapshot of the order reads exactly like GET /orders/{id}.
create function outbox_instant(t timestamptz) returns text language sql immutable parallel safe as $$
    select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') ||
        case when us = 0 then ''
             when us % 1000 = 0 then '.' || lpad((us / 1000)::text, 3, '0')
             else '.' || lpad(us::text, 6, '0') end || 'Z'
    from (select (extract(microseconds from t)::bigint % 1000000) as us) f
$$;
