-- Peer figure "keyless duplicate SHIP": SHIP without a key on orders that are already SHIPPED (seeded), cycling
-- over many of them. No key, so no record to find: the state machine reads the order, sees SHIP does not apply to
-- SHIPPED, reads the history and answers 200 Idempotent-Replayed (two statements, nothing written).
-- Env: OPERATOR, DUP_FROM, DUP_TO.
package.path = "bench/wrk/?.lua;" .. package.path
local common = require("common")
setup = common.setup

local auth = "Bearer " .. os.getenv("OPERATOR")
local from = tonumber(os.getenv("DUP_FROM"))
local to = tonumber(os.getenv("DUP_TO"))
local body = '{"carrier":"DHL","trackingNumber":"TRK-DUP"}'
local n

function init(args)
  n = from + tid
end

function request()
  local path = "/orders/" .. common.id(n) .. "/ship"
  n = n + 1
  if n > to then
    n = from
  end
  return wrk.format("POST", path, {["Authorization"] = auth, ["Content-Type"] = "application/json"}, body)
end

dofile("bench/wrk/report.lua")
