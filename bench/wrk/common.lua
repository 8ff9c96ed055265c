-- Shared by the wrk scripts: seeded order ids (see Seeded.java) and per-thread numbering, so that the threads of
-- one run never touch the same order. Tokens come from the environment (run.sh mints them).
local common = {}

function common.id(n)
  return string.format("00000000-0000-4000-8000-%012x", n)
end

local threads = {}
local counter = 0

-- wrk calls setup() once per thread before the run: hand each thread its number.
function common.setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

common.threads = threads
return common
