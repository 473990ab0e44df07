-- Sweeps buckets of expired claims on one shard, in the fingerprint layout (FingerprintBuckets.java):
-- rewrites a bucket that holds any with only its live claims, and refreshes the TTL of every level it
-- keeps. Sent after levels.lua, as one script. RedisSweeper calls it once per range of buckets per hour;
-- the marker lets only the first agent to get to a range sweep it.
--
-- KEYS[1]    the range's marker: the slot last swept
-- KEYS[2..]  the buckets: each one's first level, or each one's every level when ARGV[6] is '1'
-- ARGV[1]    the slot being swept
-- ARGV[2]    now, whole seconds (the agent's clock)
-- ARGV[3]    TTL in milliseconds given to the marker and to every level kept
-- ARGV[4]    cap: entries per level
-- ARGV[5]    most levels per bucket
-- ARGV[6]    '1' when KEYS holds every level of each bucket (a Redis Cluster, levels.lua); '2' when it
--            holds each bucket's first key, which may be the mark of its levels (layout v2: levels.lua);
--            else '0'
--
-- On shards of layout v2 it also unmarks a bucket whose claims fit its first level again, and gives a TTL
-- to the keys that claims left without one.
-- Returns { '', entries removed }, or { 'skipped', 0 } when another agent swept this slot already.

now = tonumber(ARGV[2])
key_ttl = ARGV[3] -- passed on as it came (SET PX, PEXPIRE)
cap = tonumber(ARGV[4])
max_levels = tonumber(ARGV[5])
declared = ARGV[6] == '1'
marked = ARGV[6] == '2'

local marker = KEYS[1]
local slot = ARGV[1]
if redis.call('GET', marker) == slot then return { 'skipped', 0 } end
redis.call('SET', marker, slot, 'PX', key_ttl)
local removed = 0
for b = 2, #KEYS, declared and max_levels or 1 do
  local stale = false
  is_layered(b)
  for l = 0, max_levels - 1 do
    local key = level_key(b, l)
    local all = redis.call('HGETALL', key)
    if #all == 0 then break end
    for j = 2, #all, 2 do
      if not alive(all[j]) then stale = true removed = removed + 1 end
    end
    redis.call('PEXPIRE', key, key_ttl)
  end
  if stale then rebuild(b) end
  unmark(b)
end
return { '', removed }
