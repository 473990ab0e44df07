-- Sweeps a range of buckets of one table of one shard (FingerprintTables.java): drops the records whose claims
-- have ended from buckets that no claim has written since they ended (a claim's write does it otherwise), and
-- deletes buckets left empty. Sent after guard.lua and records.lua, as one script, so that a shard without the
-- topology record the agent expects is not swept. RedisSweeper calls it for every range of every table once per
-- period; the marker lets only the first agent to get to a range sweep it.
--
-- Keys, arguments and reply: RedisSweeper.sweepRange (RedisSweeper.java), which builds the call.

now = tonumber(ARGV[2])
local every = ARGV[4] ~= '0'
local call = redis.call
if call('GET', KEYS[1]) == ARGV[1] then return { 'skipped', 0 } end
if ARGV[4] == 'e' then
  -- Records are kept until the table's event clock is a window (ARGV[5]) past their end, however late that is.
  local clock = tonumber(call('HGET', KEYS[2], 'clock'))
  if not clock then return { 'skipped', 0 } end
  now = (clock - tonumber(ARGV[5])) % RANGE
end
call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])

local dropped = 0
for k = 3, #KEYS - 1 do -- KEYS[#KEYS] is the topology record, the guard's
  local key = KEYS[k]
  local first = every and '' or call('GETRANGE', key, 0, REC - 1)
  if every or (#first == REC and first ~= FREE and not live_at(first, 1)) then
    local b = call('GET', key)
    if b then
      local whole, gone = rewritten(b, first_free(b) or #b, nil, every)
      if gone > 0 then
        dropped = dropped + gone
        if #whole == 0 then
          call('DEL', key)
        else
          call('SET', key, whole)
        end
      end
    end
  end
end
local claims = dropped > 0 and call('HINCRBY', KEYS[2], 'claims', -dropped)
  or tonumber(call('HGET', KEYS[2], 'claims')) or 0
return { '', dropped, claims }
