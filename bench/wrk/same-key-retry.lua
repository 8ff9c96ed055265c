-- Peer figure "same-key retry": the same SHIP with the same Idempotency-Key, over and over. The first one ships
-- the order; every other is a repeat the Redis shutter answers with the stored first response (no SQL).
-- Env: OPERATOR, ORDER (a seeded PAID order number), KEY.
package.path = "bench/wrk/?.lua;" .. package.path
local common = require("common")

local headers = {["Authorization"] = "Bearer " .. os.getenv("OPERATOR"), ["Content-Type"] = "application/json",
                 ["Idempotency-Key"] = os.getenv("KEY")}
local path = "/orders/" .. common.id(tonumber(os.getenv("ORDER"))) .. "/ship"
local req

-- built once per thread in init(): at load time wrk.host is not known yet and the request would lack its Host
function init(args)
  req = wrk.format("POST", path, headers, '{"carrier":"DHL","trackingNumber":"TRK-RETRY"}')
end

function request()
  return req
end

dofile("bench/wrk/report.lua")
