-- Claims or releases ids filed by event time on one shard; the layout: TimeBuckets.java. A bucket is one
-- Redis string of 11-byte records (7-byte field, 4-byte owner tag), read once per call (GET) and written
-- once, whatever the number of its ids in the call: a lookup is a memory search of the string, and a new
-- claim an append, with no per-entry decoding.
--
-- What a call costs the shard is mostly Lua's: every string Lua is handed (each bucket GET reads) is hashed
-- byte by byte, as is every string it makes. So a bucket that only gains claims gets them by APPEND, without
-- building it again in Lua; but APPEND leaves the string up to twice its length in memory (Redis grows it
-- greedily) for as long as the key lives, so once a bucket holds `settle` records it is written whole (SET),
-- exactly sized, and a bucket that fills as planned ends that way.
--
-- A release writes a tombstone (owner tag 0) in place, so a bucket only grows until it expires; the released
-- fields are published, concatenated.
--
-- Keys, arguments and reply: TimeBuckets.args (TimeBuckets.java), which builds the call.

local mode = ARGV[1]
local items = ARGV[2]
local cap = tonumber(ARGV[3])
local ttls = ARGV[5]
local distinct = ARGV[6] == '1'
local settle = tonumber(ARGV[7])
local REC = 11
local TOMB = '\0\0\0\0'
local sub, find, byte, concat = string.sub, string.find, string.byte, table.concat
local call = redis.call

local blobs = {}   -- key index -> the bucket's records as read, with this call's in-place changes
local existed = {} -- key index -> true when the key was there
local changed = {} -- key index -> true when a record was changed in place
local adds = {}    -- key index -> records appended by this call
local added = {}   -- key index -> how many
local seen = {}    -- key index -> field -> the record this call gave it (TOMB once released); unless distinct

local function ttl_of(k)
  return struct.unpack('>i4', ttls, (k - 1) * 4 + 1)
end

local released = {}
local overfull = 0

for at = 1, #items, 13 do
  local hi, lo = byte(items, at, at + 1)
  local k = hi * 256 + lo
  local field = sub(items, at + 2, at + 8)
  local b = blobs[k]
  local s = nil
  if b == nil then
    b = ''
    if ttl_of(k) > 0 then
      local got = call('GET', KEYS[k])
      if got then
        b = got
        existed[k] = true
      end
    end
    blobs[k] = b
    if not distinct then
      s = {}
      seen[k] = s
    end
  elseif not distinct then
    s = seen[k]
  end
  local v = s and s[field] -- this call's record of the id
  local p = nil
  if not v then
    -- The 1-based start of the field's record in the bucket, if any.
    local init = 1
    while true do
      p = find(b, field, init, true)
      if p == nil or (p - 1) % REC == 0 then break end
      init = p + 1
    end
    if p then v = sub(b, p, p + 10) end
  end
  local record = sub(items, at + 2, at + 12) -- field and owner tag: what a new claim appends
  n = n + 1
  if mode == 'c' then
    if v and sub(v, 8) ~= TOMB then
      answered(v == record and '\1' or '\2')
    else
      if p then -- a released claim of this id: claimed anew in its record
        blobs[k] = sub(b, 1, p - 1) .. record .. sub(b, p + 11)
        changed[k] = true
      else
        local m = (added[k] or 0) + 1
        if m == 1 then adds[k] = { record } else adds[k][m] = record end
        added[k] = m
        if #b / REC + m > cap then overfull = overfull + 1 end
      end
      if s then s[field] = record end
      if answers then answers[n] = '\0' end
    end
  else
    if v == record and p then -- live (an owner tag is never 0) and held by this owner
      blobs[k] = sub(b, 1, p + 6) .. TOMB .. sub(b, p + 11)
      changed[k] = true
      if s then s[field] = field .. TOMB end
      released[#released + 1] = field
      answered('\1')
    elseif answers then
      answers[n] = '\0'
    end
  end
end

for k, b in pairs(blobs) do
  local a = adds[k]
  local ttl = ttl_of(k)
  if ttl > 0 and (a or changed[k]) then
    if existed[k] and not changed[k] and #b / REC + added[k] < settle then
      redis.call('APPEND', KEYS[k], concat(a))
    else
      local whole = a and (b .. concat(a)) or b
      if existed[k] then
        redis.call('SET', KEYS[k], whole, 'KEEPTTL')
      else
        redis.call('SET', KEYS[k], whole, 'EX', ttl)
      end
    end
  end
end

if mode == 'r' and #released > 0 then
  redis.call('PUBLISH', ARGV[4], concat(released))
end
return { verdicts(), overfull }
