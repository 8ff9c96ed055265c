-- Peer figure "ship": each request ships another seeded PAID order (keyless, as an operator tool would), so every
-- request is a real transition: select + CAS statement. Env: OPERATOR, SHIP_FROM, SHIP_TO.
package.path = "bench/wrk/?.lua;" .. package.path
local common = require("common")
setup = common.setup

local auth = "Bearer " .. os.getenv("OPERATOR")
local from = tonumber(os.getenv("SHIP_FROM"))
local to = tonumber(os.getenv("SHIP_TO"))
local body = '{"carrier":"DHL","trackingNumber":"TRK-WRK"}'
local n, nthreads

function init(args)
  nthreads = tonumber(os.getenv("WRK_THREADS") or "2")
  n = from + tid
end

function request()
  if n > to then
    error("ran out of seeded PAID orders")
  end
  local path = "/orders/" .. common.id(n) .. "/ship"
  n = n + nthreads
  return wrk.format("POST", path, {["Authorization"] = auth, ["Content-Type"] = "application/json"}, body)
end

dofile("bench/wrk/report.lua")
