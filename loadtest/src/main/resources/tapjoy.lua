-- Tapjoy's dedupe script ("Real-Time Deduping At Scale", Aaron Pfeifer, 2017), as the article describes it:
-- one call per bucket; HMGET the bucket's ids, compare owners, HMSET the unclaimed ones, return only the
-- duplicates.
-- The load generator's --direct mode runs it; the agent never does.
--
-- KEYS[1]   the bucket: message second (10 digits) ':' slice (3 digits), 14 bytes
-- ARGV[1]   the bucket's TTL in seconds (the dedupe window)
-- ARGV[2..] id, owner, id, owner, ...: 16-byte binary UUIDs, 8-byte owners (2-byte partition, 6-byte offset)
--
-- Returns the 1-based positions (in this call) of the duplicates: ids already held by another owner. One
-- addition to the article: an id twice in one call is compared with the copy set earlier in the call, as
-- the agent does, so a duplicate in the same bucket and batch is not missed.

local n = (#ARGV - 1) / 2
local ids = {}
for i = 1, n do
  ids[i] = ARGV[2 * i]
end
local existing = redis.call('HMGET', KEYS[1], unpack(ids))
local dups = {}
local set = {}
local seen = {}
for i = 1, n do
  local id = ids[i]
  local owner = ARGV[2 * i + 1]
  local holder = existing[i] or seen[id]
  if not holder then
    set[#set + 1] = id
    set[#set + 1] = owner
    seen[id] = owner
  elseif holder ~= owner then
    dups[#dups + 1] = i
  end
end
if #set > 0 then
  redis.call('HMSET', KEYS[1], unpack(set))
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
return dups
