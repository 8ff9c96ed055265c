-- Every claim of a provider command writes a new claim token; the worker settles the command only where the token
-- is still its own. A replica whose lease ran out mid-call (or that paused past it) therefore cannot overwrite the
-- outcome another replica's newer claim recorded: its late SENT or FAILED changes nothing.
alter table provider_commands add column claim uuid;
