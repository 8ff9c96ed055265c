-- The peer's ship.lua at a pace: each connection waits DELAY_MS between its requests (wrk's delay hook), so
-- bench/versus.sh can measure ship's latency well below saturation. Env: DELAY_MS, and ship.lua's own.
dofile(os.getenv("BENCH_DIR") .. "/ship.lua")
local pause = tonumber(os.getenv("DELAY_MS"))

function delay()
   return pause
end
