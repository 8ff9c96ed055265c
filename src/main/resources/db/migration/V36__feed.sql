-- The feed as PostgreSQL's own log (docs/events.md). An event is no longer a CloudEvent written beside the change:
-- it is the change's own row, rendered into a CloudEvent when it is read.
--   order_transitions  a transition's history row is its event: xid (the writing transaction's id) lets the
--                      sequencer find new rows safely, snapshot holds the order's changing fields after the move
--                      (the rest never changes), trace the W3C traceparent of the request that made it
--   order_side_events  the other events of an order, rare: its creation and its refunds' status changes
--   event_feed         the feed: one narrow row per event, its position drawn by the sequencer in commit order
--   event_cursors      the sequencer's horizon and last position, the retention's purged position, the Redis
--                      Stream relay's position and lease

-- Rows written before this migration keep a null xid: their events are in the feed already (below).
alter table order_transitions add column xid xid8;
alter table order_transitions alter column xid set default pg_current_xact_id();
alter table order_transitions add column snapshot jsonb;
alter table order_transitions add column trace text;
create index order_transitions_by_xid on order_transitions (xid) where xid is not null;

create table order_side_events (
    id            bigint      generated always as identity primary key,
    order_id      uuid        not null,
    type          text        not null,
    -- the order's version this event follows: its events stand in (version, transition first, id) order
    order_version bigint      not null,
    xid           xid8        not null default pg_current_xact_id(),
    at            timestamptz not null,
    -- a refund's event data as written (the refund as GET shows it); null for a creation
    data          jsonb,
    trace         text
);
create index order_side_events_by_xid on order_side_events (xid);

-- kind: 't' a transition (ref: its seq), 's' a side event (ref: its id), 'l' an event of the former outbox (ref: its
-- seq in legacy_outbox, which keeps its CloudEvent until retention purges it).
create table event_feed (
    position bigint      primary key,
    order_id uuid        not null,
    kind     char(1)     not null check (kind in ('t', 's', 'l')),
    ref      bigint      not null,
    at       timestamptz not null
);
create unique index event_feed_source on event_feed (order_id, kind, ref);

create table event_cursors (
    name           text        primary key,
    position       bigint      not null,
    horizon        xid8,
    stream_last_id text,
    leased_by      text,
    lease_until    timestamptz,
    updated_at     timestamptz not null
);

-- The outbox's events keep their positions; those not yet published follow them, in the order they were written.
insert into event_feed (position, order_id, kind, ref, at)
select position, cast(aggregateid as uuid), 'l', seq, created_at from outbox where position is not null;
insert into event_feed (position, order_id, kind, ref, at)
select coalesce((select max(position) from outbox), 0) + row_number() over (order by seq), cast(aggregateid as uuid),
       'l', seq, created_at
from outbox where position is null;

insert into event_cursors (name, position, horizon, updated_at)
values ('sequencer', coalesce((select max(position) from event_feed), 0), '0', now());
insert into event_cursors (name, position, updated_at) values ('retention', 0, now());
-- the stream has every event the outbox relay published, and none of the others
insert into event_cursors (name, position, updated_at)
values ('redis-stream', coalesce((select max(position) from outbox where published_at is not null), 0), now());

alter table outbox rename to legacy_outbox;
drop index outbox_unpublished;
drop index outbox_feed_position;
alter table legacy_outbox drop constraint outbox_published_has_position;
alter table legacy_outbox add constraint legacy_outbox_seq unique (seq);
drop sequence outbox_position;

-- Webhooks: each endpoint reads the feed through a cursor of its own, on one replica at a time (its lease). A
-- delivery row exists only for an event that failed and is being retried, or that waits behind one of its order's.
alter table webhook_endpoints add column cursor bigint not null default 0;
alter table webhook_endpoints add column leased_by text;
alter table webhook_endpoints add column lease_until timestamptz;
-- every event the outbox relay published was fanned out already
update webhook_endpoints set cursor = (select position from event_cursors where name = 'redis-stream');

-- seq was the outbox's; a delivery is ordered by its event's feed position now
update webhook_deliveries d set seq = f.position
from legacy_outbox l join event_feed f on f.kind = 'l' and f.ref = l.seq where l.id = d.event_id;
alter table webhook_deliveries rename column seq to position;
drop index webhook_deliveries_order;
create index webhook_deliveries_order on webhook_deliveries (endpoint_id, aggregateid, position)
    where status = 'PENDING';
create index webhook_deliveries_settled on webhook_deliveries (updated_at) where status <> 'PENDING';
-- the W3C trace context of the change the event reports, sent with every attempt
alter table webhook_deliveries add column trace text;

-- The replicas dispatching webhooks, each seen at its last lease round: an endpoint's fair share is the enabled
-- endpoints divided among them.
create table webhook_dispatchers (
    replica text        primary key,
    seen_at timestamptz not null
);
create index webhook_attempts_at on webhook_attempts (at);
