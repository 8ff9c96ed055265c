-- outbox_instant again, as one expression without a FROM: PostgreSQL inlines such a SQL function into the statement
-- that calls it, where V30's form (a subquery) ran as a function call of its own, eight per order event. Measured on
-- 200,000 timestamps: 6.2 µs per call before, 1.5 µs inlined, the same text for every one (microseconds, whole
-- milliseconds and whole seconds alike). STABLE, not IMMUTABLE: to_char is stable, and an inlined body may not be
-- more volatile than its function says.
create or replace function outbox_instant(t timestamptz) returns text language sql stable parallel safe as $$
    select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') ||
        case when extract(microseconds from t)::bigint % 1000000 = 0 then ''
             when extract(microseconds from t)::bigint % 1000 = 0 then '.' || to_char(t at time zone 'UTC', 'MS')
             else '.' || to_char(t at time zone 'UTC', 'US') end || 'Z'
$$;
