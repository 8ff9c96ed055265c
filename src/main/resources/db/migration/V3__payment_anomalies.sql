-- What a provider told us that we did not (or could not) apply, for operators to act on: amount or currency
-- mismatches, double captures (a refund is owed), stale or illegal events, events for unknown orders.
create table payment_anomalies (
    id              bigint generated always as identity primary key,
    order_id        uuid        not null,
    provider        text        not null,
    event_id        text        not null,
    provider_txn_id text,
    kind            text        not null,
    detail          text        not null,
    at              timestamptz not null,
    constraint payment_anomalies_once unique (provider, event_id, kind)
);

create index payment_anomalies_by_order on payment_anomalies (order_id);
