-- Peer figure "GET": GET /orders/{id} of a random seeded order, as its customer (the owner check runs).
-- Env: CUSTOMER, READ_FROM, READ_TO.
package.path = "bench/wrk/?.lua;" .. package.path
local common = require("common")

local headers = {["Authorization"] = "Bearer " .. os.getenv("CUSTOMER")}
local from = tonumber(os.getenv("READ_FROM"))
local to = tonumber(os.getenv("READ_TO"))

function init(args)
  math.randomseed(os.time() + (tid or 0))
end

function request()
  return wrk.format("GET", "/orders/" .. common.id(math.random(from, to)), headers)
end

dofile("bench/wrk/report.lua")
