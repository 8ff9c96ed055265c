-- A PAY that replaces an order's pending attempt names itself on the attempts its statement replaced, so that it
-- cancels at their provider exactly those (not an attempt it read before the statement, which another PAY may have
-- replaced in the meantime).
alter table payment_attempts add column replaced_by uuid;

create index payment_attempts_replaced_by on payment_attempts (replaced_by) where replaced_by is not null;

-- Every refund a provider told us about, once per provider refund id: the worker's answer to a refund command, a
-- refund notification, a reconciliation's look-up. command_id is the command the refund gives back the capture of
-- (null when no command of ours owes one: a refund made at the provider's dashboard). The invariant checker holds
-- the service to one provider refund per command.
create table provider_refunds (
    provider       text        not null,
    refund_id      text        not null,
    command_id     uuid        references provider_commands (id),
    capture_txn_id text        not null,
    seen_at        timestamptz not null,
    primary key (provider, refund_id)
);

create index provider_refunds_by_command on provider_refunds (command_id);
