-- A signed event that fails validation is recorded as an anomaly and acknowledged (providers re-send every non-2xx
-- for days); its order id may be missing or garbled, so the anomaly may name no order.
alter table payment_anomalies alter column order_id drop not null;
