-- Ends the claims of namespaces filed by event time (TimeBuckets.java) on the namespace's event clock, not on the
-- wall's: a job that stalls or falls behind keeps its claims. Sent after guard.lua, as one script, so that a shard
-- without the topology record the agent expects is not written. TimedSweeper.java makes both calls.
--
-- ARGV[1] 'k', hand out seconds to delete: KEYS[1] is the namespace's sweep record, a hash of `clock` (the newest
-- event second an agent has told it, never ahead of that agent's wall clock) and `swept` (the buckets of every
-- second before it are deleted, or handed to an agent to delete). ARGV[2] is the agent's event clock, ARGV[3] how
-- far behind the clock a second's claims are over (two windows: a claim ends a window after its event second and
-- is kept a window more, for readers behind the newest), ARGV[4] the most seconds one call hands out, ARGV[5] the
-- oldest event second the agent has filed: the first call of a namespace starts there, or one call's seconds
-- before the seconds now over if that is later (older buckets end by their keys' expiry). Replies {clock, from, to}: the caller deletes the buckets
-- of seconds from to to - 1, which no other call is handed.
--
-- ARGV[1] 'd', delete: KEYS[1 .. #KEYS - 1] (the guard's key is last) are buckets of seconds handed out. Replies
-- {how many there were}.

local call = redis.call
if ARGV[1] == 'd' then
  local n = 0
  local last = #KEYS - 1
  for i = 1, last, 512 do
    n = n + call('DEL', unpack(KEYS, i, math.min(i + 511, last)))
  end
  return { n }
end

local clock = tonumber(ARGV[2])
local held = tonumber(call('HGET', KEYS[1], 'clock'))
if held and held > clock then clock = held end
local target = clock - tonumber(ARGV[3])
local most = tonumber(ARGV[4])
local from = tonumber(call('HGET', KEYS[1], 'swept'))
  or math.max(math.min(target, tonumber(ARGV[5])), target - most)
local to = math.max(from, math.min(target, from + most))
call('HSET', KEYS[1], 'clock', string.format('%d', clock), 'swept', string.format('%d', to))
return { clock, from, to }
