-- A transition now records what it was asked with (carrier and tracking number, cancel reason, provider...), so a
-- keyless repeat is a duplicate only when it asks for the same thing.
alter table order_transitions add column details jsonb;

-- The stored answer of a keyed request, in one of two forms:
--   result: the business row a write produced (to_jsonb of the order as the statement left it), written in the same
--           statement as the write itself; the operation renders it into the response, the first time and on replay;
--   reply:  a rendered answer ({"s": status, "c": content type, "h": headers, "b": base64 body}, the same encoding as
--           the Redis cache) for outcomes that wrote no business row (duplicates, business refusals).
alter table idempotency_keys add column result jsonb;
alter table idempotency_keys add column reply jsonb;
update idempotency_keys
   set reply = jsonb_build_object('s', response_status, 'c', response_content_type,
                                  'h', coalesce(response_headers, '{}'::jsonb),
                                  'b', translate(encode(response_body, 'base64'), E'\n', ''))
 where response_status is not null;
alter table idempotency_keys drop column response_status, drop column response_content_type,
    drop column response_headers, drop column response_body;
-- never used: every operation is one local transaction, so no record is ever leased
alter table idempotency_keys drop column holder, drop column locked_until;
