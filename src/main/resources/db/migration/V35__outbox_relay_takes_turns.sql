-- Relay rounds take turns under an advisory lock (Outbox.RELAY_LOCK), so the claim no longer asks, per candidate,
-- whether an older event of its order is still unpublished: the index that answered it goes, one index entry fewer
-- written by every transition that writes an event.
drop index outbox_unpublished_by_aggregate;
