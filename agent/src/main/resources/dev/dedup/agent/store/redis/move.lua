-- Moves a bucket (its levels) or a stream's ranges from the shard the previous list put it on to the one the
-- current list does, during a declared change of the shard list (Moves.java); sent after guard.lua, as one
-- script. KEYS[1] is the unit's marker on the target shard, KEYS[2 .. #KEYS-1] the unit's keys (KEYS[#KEYS]
-- and ARGV[#ARGV]: the topology record and its expected value, checked by guard.lua first).
--
-- ARGV[1]  'k' check: { 1 } when the unit has arrived on this shard (its marker is set), else { 0 }
--          'o' out:   the unit's keys as { type, pttl, contents } each, read on the source shard; a hash's
--                     contents are its fields and values, a string's its value, a missing key's nothing
--          'i' in:    ARGV[2] the marker's TTL in milliseconds, then per key: type, pttl, count, contents...
--                     as 'o' gave them; writes them and sets the marker, unless it is set already.
--                     { 1 } written, { 0 } it had arrived
--          'd' drop:  deletes the unit's keys on the source shard once it has arrived: { keys deleted }
--          's' scan:  ARGV[2] cursor, ARGV[3] pattern: { next cursor, keys } of one SCAN step (COUNT 1000)

local op = ARGV[1]
local last = #KEYS - 1 -- the topology record is KEYS[#KEYS]

if op == 'k' then
  return { redis.call('EXISTS', KEYS[1]) }
end

if op == 'o' then
  local out = {}
  for k = 2, last do
    local t = redis.call('TYPE', KEYS[k])['ok']
    local contents = {}
    if t == 'hash' then
      contents = redis.call('HGETALL', KEYS[k])
    elseif t == 'string' then
      contents = { redis.call('GET', KEYS[k]) }
    elseif t ~= 'none' then
      return redis.error_reply('DEDUPMOVE ' .. KEYS[k] .. ' is a ' .. t .. ', not a key of this agent')
    end
    out[#out + 1] = { t, redis.call('PTTL', KEYS[k]), contents }
  end
  return out
end

if op == 'i' then
  if redis.call('EXISTS', KEYS[1]) == 1 then return { 0 } end
  local at = 3
  for k = 2, last do
    local t, pttl, n = ARGV[at], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
    at = at + 3
    if t == 'hash' and n > 0 then
      for from = at, at + n - 1, 1000 do
        redis.call('HSET', KEYS[k], unpack(ARGV, from, math.min(from + 999, at + n - 1)))
      end
    elseif t == 'string' and n == 1 then
      redis.call('SET', KEYS[k], ARGV[at])
    end
    if n > 0 and pttl > 0 then redis.call('PEXPIRE', KEYS[k], pttl) end
    at = at + n
  end
  redis.call('SET', KEYS[1], '1', 'PX', ARGV[2])
  return { 1 }
end

if op == 'd' then
  local n = 0
  for k = 2, last do n = n + redis.call('DEL', KEYS[k]) end
  return { n }
end

if op == 's' then
  return redis.call('SCAN', ARGV[2], 'MATCH', ARGV[3], 'COUNT', 1000)
end

return redis.error_reply('DEDUPMOVE unknown operation ' .. tostring(op))
