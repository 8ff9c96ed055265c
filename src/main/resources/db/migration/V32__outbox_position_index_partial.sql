-- The feed position's uniqueness, held only where there is a position: the unique constraint indexed every new
-- event's null too, one more index entry written by every transition statement for a value no reader looks up.
-- Same guarantee (nulls never conflicted), one index write fewer per event.
alter table outbox drop constraint outbox_position_key;
create unique index outbox_feed_position on outbox (position) where position is not null;
