-- A CANCEL of an order whose payment is pending cancels that payment at its provider (Stripe PaymentIntent cancel,
-- WeChat Pay close-order) through a durable command, written in the statement of the move like a refund owed and
-- sent by the same worker. A cancel names the attempt's provider reference and no capture; one per payment, however
-- often the decision that owes it is repeated.
alter table provider_commands drop constraint provider_commands_kind_check;
alter table provider_commands add constraint provider_commands_kind_check check (kind in ('REFUND', 'CANCEL'));
alter table provider_commands alter column capture_txn_id drop not null;
alter table provider_commands add constraint provider_commands_refund_capture
    check (kind <> 'REFUND' or capture_txn_id is not null);
create unique index provider_commands_one_cancel on provider_commands (provider, payment_reference)
    where kind = 'CANCEL';

-- An attempt the provider cancelled at our request: it can no longer be paid, so the janitor stops asking about it.
alter table payment_attempts drop constraint payment_attempts_state_check;
alter table payment_attempts add constraint payment_attempts_state_check
    check (state in ('PENDING', 'CAPTURED', 'FAILED', 'REPLACED', 'CANCELLED'));
