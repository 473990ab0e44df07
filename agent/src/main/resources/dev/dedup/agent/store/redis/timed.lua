-- Claims or releases ids filed by event time on one shard; the layout: TimeBuckets.java. A bucket is one
-- Redis string of 11-byte records (7-byte field, 4-byte owner tag), read once per call (GET) and written
-- once (SET), whatever the number of its ids in the call: a lookup is a memory search of the string, and
-- a new claim an append, with no per-entry decoding.
--
-- ARGV[1]    'c' claim, 'r' release
-- ARGV[2]    the items, 13 bytes each, in batch order: u16 key index (1-based), 7-byte field (the id's
--            key), 4-byte owner tag (never 0)
-- ARGV[3]    cap: records a bucket is planned to hold; claims appended beyond it are counted (overfull)
-- ARGV[4]    the channel on which released fields are published
-- ARGV[5]    per key, in KEYS order, the seconds its claims have left by the agent's clock, i32: the
--            expiry of a new key (relative, so that the agent's clock decides, as everywhere else); 0 or
--            less means the key's claims are over, whatever Redis still holds
-- KEYS[#KEYS], ARGV[6]: the topology record and its expected value, checked by guard.lua first
--
-- Returns { answers, overfull }. Claim: one byte per item, 0 new, 1 retry, 2 duplicate. Release: one byte
-- per item, 1 released, 0 not held by that owner; the released fields are published, concatenated, on
-- ARGV[4]. A release writes a tombstone (owner tag 0) in place, so a bucket only grows until it expires.

local mode = ARGV[1]
local items = ARGV[2]
local cap = tonumber(ARGV[3])
local ttls = ARGV[5]
local REC = 11
local TOMB = '\0\0\0\0'

local blobs = {}   -- key index -> the bucket's records as read, with this call's in-place changes
local existed = {} -- key index -> true when the key was there
local changed = {} -- key index -> true when a record was changed in place
local adds = {}    -- key index -> records appended by this call
local seen = {}    -- key index -> field -> the record this call gave it (with TOMB once released)

local function ttl_of(k)
  return struct.unpack('>i4', ttls, (k - 1) * 4 + 1)
end

local function blob_of(k)
  local b = blobs[k]
  if b == nil then
    b = ''
    if ttl_of(k) > 0 then
      local got = redis.call('GET', KEYS[k])
      if got then
        b = got
        existed[k] = true
      end
    end
    blobs[k] = b
    seen[k] = {}
  end
  return b
end

-- The 1-based start of field's record in b, or nil.
local function find(b, field)
  local init = 1
  while true do
    local p = string.find(b, field, init, true)
    if p == nil then return nil end
    if (p - 1) % REC == 0 then return p end
    init = p + 1
  end
end

local answers = {}
local released = {}
local overfull = 0

for at = 1, #items, 13 do
  local k = struct.unpack('>H', items, at)
  local field = string.sub(items, at + 2, at + 8)
  local record = string.sub(items, at + 2, at + 12) -- field and owner tag: what a new claim appends
  local b = blob_of(k)
  local s = seen[k]
  local v = s[field] -- this call's record of the id
  local p = nil
  if v == nil then
    p = find(b, field)
    if p then v = string.sub(b, p, p + 10) end
  end
  local live = v ~= nil and string.sub(v, 8) ~= TOMB
  if mode == 'c' then
    if live then
      answers[#answers + 1] = v == record and '\1' or '\2'
    else
      if p then -- a released claim of this id: claimed anew in its record
        blobs[k] = string.sub(b, 1, p - 1) .. record .. string.sub(b, p + 11)
        changed[k] = true
      else
        local a = adds[k]
        if a == nil then a = {} adds[k] = a end
        if #b / REC + #a >= cap then overfull = overfull + 1 end
        a[#a + 1] = record
      end
      s[field] = record
      answers[#answers + 1] = '\0'
    end
  else
    if live and v == record and p then
      blobs[k] = string.sub(b, 1, p + 6) .. TOMB .. string.sub(b, p + 11)
      changed[k] = true
      s[field] = field .. TOMB
      released[#released + 1] = field
      answers[#answers + 1] = '\1'
    else
      answers[#answers + 1] = '\0'
    end
  end
end

for k, b in pairs(blobs) do
  local a = adds[k]
  local ttl = ttl_of(k)
  if ttl > 0 and (a or changed[k]) then
    local whole = a and (b .. table.concat(a)) or b
    if existed[k] then
      redis.call('SET', KEYS[k], whole, 'KEEPTTL')
    else
      redis.call('SET', KEYS[k], whole, 'EX', ttl)
    end
  end
end

if mode == 'r' and #released > 0 then
  redis.call('PUBLISH', ARGV[4], table.concat(released))
end
return { table.concat(answers), overfull }
