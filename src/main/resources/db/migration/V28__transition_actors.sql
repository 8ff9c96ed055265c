-- Every history row names its actor: who made the move. For an API call the token's subject (the operator or the
-- customer), for a provider's callback the provider's name, for the janitor 'reconciler'. Written by the transition
-- statement itself, like the rest of the row.
alter table order_transitions add column actor text;

-- Rows written before: a provider's move is the provider's, unless the janitor asked for it (its request keys are
-- 'reconcile:<reference>:<status>'); an API call's subject was never recorded, so it stays null ("unknown").
update order_transitions
   set actor = case when request_key like 'reconcile:%' then 'reconciler' else source end
 where source <> 'api';
