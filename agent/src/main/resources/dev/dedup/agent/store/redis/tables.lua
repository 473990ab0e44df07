-- The fingerprint tables a shard holds, for the sweep (claims.lua adds a table's name to the set when the
-- table gains its first record).
--
-- Keys, arguments and reply: RedisSweeper.readTables (RedisSweeper.java), which builds the call.

local out = {}
for _, name in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local s = redis.call('HMGET', ARGV[1] .. name, 'level', 'split', 'claims')
  out[#out + 1] = { name, tonumber(s[1]) or 0, tonumber(s[2]) or 0, tonumber(s[3]) or 0 }
end
return out
