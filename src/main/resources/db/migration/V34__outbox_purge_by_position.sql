-- The purge walks the feed's position index from its start (positions are drawn in publishing order), so the index
-- on published_at goes: marking an event published wrote one more index entry for a value only the purge read.
drop index outbox_published;
