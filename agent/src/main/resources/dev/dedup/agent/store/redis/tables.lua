-- The fingerprint tables a shard holds, for the sweep (claims.lua adds a table's name to the set when the
-- table gains its first record).
--
-- KEYS[1]  the shard's set of tables
-- ARGV[1]  what a table's state key is before the table's name (RedisKeys.tableState)
--
-- Returns, per table, { name, level, split, claims }.
local out = {}
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local s = redis.call('HMGET', ARGV[1] .. name, 'level', 'split', 'claims')
  out[#out + 1] = { name, tonumber(s[1]) or 0, tonumber(s[2]) or 0, tonumber(s[3]) or 0 }
end
return out
