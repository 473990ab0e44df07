-- Claims or releases ids filed by event time on one shard; RedisStore calls it with EVALSHA. Layout:
-- TimeLayout.java. Each bucket of the call is read once per level (HLEN, HMGET of the call's fields) and
-- written once (HSET of the call's new claims), whatever the number of its ids in the call.
--
-- A bucket is a chain of levels: KEYS[k], then KEYS[k] .. '\1', '\2', ... A level beyond the first holds
-- entries only while every level before it holds `cap`; releases leave tombstones (empty values) rather
-- than delete, so this stays true and the levels after one with room are empty.
--
-- ARGV[1]    'c' claim, 'r' release
-- ARGV[2]    cap: entries per level
-- ARGV[3]    most levels per bucket; the last one grows past cap rather than forget a claim
-- ARGV[4]    the items, 13 bytes each, in batch order: u16 key index (1-based), 7-byte field (the id's
--            key), 4-byte owner tag
-- ARGV[5]    per key, in KEYS order, the seconds its claims have left by the agent's clock, i32: the EXPIRE
--            of a new level (relative, so that the agent's clock decides, as everywhere else); 0 or less
--            means the key's claims are over, whatever Redis still holds
-- ARGV[6]    release: the channel on which released fields are published
--
-- Returns { answers, spilled }. Claim: one byte per item, 0 new, 1 retry, 2 duplicate; spilled counts
-- claims written beyond a bucket's first level (the namespace's event rate is set too low). Release:
-- one byte per item, 1 released, 0 not held by that owner; the released fields are published,
-- concatenated, on ARGV[6].

local mode = ARGV[1]
local cap = tonumber(ARGV[2])
local max_levels = tonumber(ARGV[3])
local items = ARGV[4]
local n = #items / 13

local function ttl_of(k)
  return struct.unpack('>i4', ARGV[5], (k - 1) * 4 + 1)
end

local function level_key(base, l)
  if l == 0 then return base end
  return base .. string.char(l)
end

-- The items, grouped by key in call order.
local key_of, fields, owners, groups, order = {}, {}, {}, {}, {}
for i = 1, n do
  local at = (i - 1) * 13 + 1
  local k = struct.unpack('>H', items, at)
  key_of[i] = k
  fields[i] = string.sub(items, at + 2, at + 8)
  owners[i] = string.sub(items, at + 9, at + 12)
  local g = groups[k]
  if g == nil then
    g = {}
    groups[k] = g
    order[#order + 1] = k
  end
  g[#g + 1] = i
end

-- What the store holds for each item: found[i] its value ('' when released), found_level[i] the level.
-- lens[k] holds the lengths of the levels read, the last one read being the first with room (or a level
-- read last because every field was found there).
local found, found_level, lens = {}, {}, {}
for _, k in ipairs(order) do
  local base = KEYS[k]
  local pending = groups[k]
  local levels = {}
  local over = ttl_of(k) <= 0
  for l = 0, max_levels - 1 do
    local key = level_key(base, l)
    local len = 0
    if not over then len = redis.call('HLEN', key) end
    levels[l + 1] = len
    if len == 0 then break end
    local fs = {}
    for j = 1, #pending do fs[j] = fields[pending[j]] end
    local values = redis.call('HMGET', key, unpack(fs))
    local rest = {}
    for j = 1, #pending do
      local v = values[j]
      if v then
        found[pending[j]] = v
        found_level[pending[j]] = l
      else
        rest[#rest + 1] = pending[j]
      end
    end
    pending = rest
    if len < cap or #pending == 0 then break end
  end
  lens[k] = levels
end

local answers = {}
local seen = {}   -- seen[k][field]: the value this call gave the field
local writes = {} -- writes[k][l]: { field, value, ... } to HSET on level l of key k
local spilled = 0
local released = {}

local function write(k, l, field, value)
  local per_key = writes[k]
  if per_key == nil then per_key = {} writes[k] = per_key end
  local w = per_key[l]
  if w == nil then w = {} per_key[l] = w end
  w[#w + 1] = field
  w[#w + 1] = value
end

-- Where the next new claim of key k goes: the level, and the room left there.
local target, room = {}, {}
local function place(k)
  local l = target[k]
  if l == nil then
    local levels = lens[k]
    l = #levels - 1
    room[k] = cap - levels[#levels]
  end
  if room[k] <= 0 and l < max_levels - 1 then
    l = l + 1
    room[k] = cap
  end
  target[k] = l
  room[k] = room[k] - 1
  return l
end

for i = 1, n do
  local k = key_of[i]
  local field = fields[i]
  local s = seen[k]
  if s == nil then s = {} seen[k] = s end
  local v = s[field]
  local l = found_level[i]
  if v == nil then v = found[i] end
  if mode == 'c' then
    if v ~= nil and v ~= '' then
      answers[i] = v == owners[i] and '\1' or '\2'
    else
      if v == nil or l == nil then
        l = place(k)
        if l > 0 then spilled = spilled + 1 end
      end
      write(k, l, field, owners[i])
      s[field] = owners[i]
      found_level[i] = l
      answers[i] = '\0'
    end
  else
    if v ~= nil and v ~= '' and v == owners[i] then
      write(k, l, field, '')
      s[field] = ''
      released[#released + 1] = field
      answers[i] = '\1'
    else
      answers[i] = '\0'
    end
  end
end

-- A level written for the first time gets its expiry; HSET in pieces that unpack can take.
for k, per_key in pairs(writes) do
  local base = KEYS[k]
  local levels = lens[k]
  local ttl = ttl_of(k)
  for l, w in pairs(per_key) do
    local key = level_key(base, l)
    for from = 1, #w, 2000 do
      redis.call('HSET', key, unpack(w, from, math.min(#w, from + 1999)))
    end
    if levels[l + 1] == nil or levels[l + 1] == 0 then
      redis.call('EXPIRE', key, ttl) -- 0 or less: claims already over, the level goes at once
    end
  end
end

if mode == 'r' and #released > 0 then
  redis.call('PUBLISH', ARGV[6], table.concat(released))
end
return { table.concat(answers), spilled }
