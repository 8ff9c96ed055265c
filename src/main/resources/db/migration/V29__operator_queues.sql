-- What the janitor last heard when it asked a provider about a pending attempt ('pending', 'no-answer',
-- 'query-declined (<code>)', 'answered'), and when: GET /ops/payments-stuck shows it. Null until it first asks.
alter table payment_attempts add column last_answer text;
alter table payment_attempts add column last_asked_at timestamptz;

-- An anomaly an operator has dealt with: who (the token's subject), what they noted, when. Resolving is once: the
-- first resolution stands. GET /payments/anomalies?resolved=false is the on-call queue.
alter table payment_anomalies add column resolved_by text;
alter table payment_anomalies add column resolution_note text;
alter table payment_anomalies add column resolved_at timestamptz;
alter table payment_anomalies add constraint payment_anomalies_resolved_whole
    check ((resolved_at is null) = (resolved_by is null) and (resolved_at is null) = (resolution_note is null));
create index payment_anomalies_unresolved on payment_anomalies (id) where resolved_at is null;
