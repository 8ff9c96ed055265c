-- GET /orders/{id}/events reads an order's side events (its creation, its refunds' changes) by the order: without
-- this index every call read the whole table.
create index order_side_events_by_order on order_side_events (order_id);
