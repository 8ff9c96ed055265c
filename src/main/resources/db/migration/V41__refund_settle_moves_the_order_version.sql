-- A refund's success that adds to the order's refunded amount changes the order as GET /orders/{id} shows it, so it
-- raises the order's version (and its ETag) too: order_version is the version that settle gave the order, null for a
-- refund that did not count (FAILED, PENDING, or settled by the transition that refunded the whole order). An
-- order's versions are its history rows' seq and its counted refunds' order_version, each once.
alter table refunds add column order_version bigint;
