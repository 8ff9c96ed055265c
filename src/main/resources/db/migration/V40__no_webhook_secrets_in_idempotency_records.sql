-- The idempotency record of a webhook endpoint's registration or rotation kept the endpoint's whole row, its signing
-- secret and the previous one included, for the record's seven days, and a replay answered that old secret. A record
-- now keeps the endpoint's id alone (a replay answers the endpoint as it is now); the records stored before keep the
-- same and lose the rest.
update idempotency_keys
set result = jsonb_set(result, '{endpoint}', jsonb_build_object('id', result -> 'endpoint' -> 'id'))
where result is not null
  and jsonb_typeof(result -> 'endpoint') = 'object'
  and (result -> 'endpoint' ? 'secret' or result -> 'endpoint' ? 'previous_secret');
