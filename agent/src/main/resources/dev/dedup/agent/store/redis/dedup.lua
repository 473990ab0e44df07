-- Claims, releases or sweeps ids on one shard; RedisStore calls it with EVALSHA. Layout: RedisLayout.java.
--
-- A bucket is a chain of levels: the hash KEYS[k], then KEYS[k] .. '\1', '\2', ... A level holds at most
-- `cap` entries, and a level beyond the first holds entries only while every level before it is full:
-- so while the first level has room (nearly always) an id can only be there, and one HSETNX decides it.
--
-- ARGV[1]    'c' claim, 'r' release, 's' sweep
-- ARGV[2]    now, whole seconds (the agent's clock)
-- ARGV[3]    TTL in milliseconds given to level keys when written or swept (longest window + 2 sweeps)
-- ARGV[4]    cap: entries per level
-- ARGV[5]    most levels per bucket
-- ARGV[6]    claim, release: the items, 15 bytes each, in batch order: u16 key index (1-based), 7-byte
--            field (the id's key), 6-byte value (28-bit owner tag, 20-bit expiry second; a release ignores
--            the expiry); sweep: the sweep's slot number, KEYS[1] being its marker
-- ARGV[7]    release: the channel on which released fields are published
--
-- Returns { answers, evictions }. Claim: one byte per item, 0 new, 1 retry, 2 duplicate; evictions counts
-- live claims dropped because every level of their bucket was full of them. Release: one byte per item,
-- 1 released, 0 not held by that owner; the released fields are published, concatenated, on ARGV[7]. Sweep: { '', entries removed }, or { 'skipped', 0 } when another agent swept
-- this slot already.

local mode = ARGV[1]
local now = tonumber(ARGV[2])
local key_ttl = tonumber(ARGV[3])
local cap = tonumber(ARGV[4])
local max_levels = tonumber(ARGV[5])

local RANGE = 1048576 -- expiry seconds are kept modulo 2^20
local HALF = 524288

-- A value is 48 bits, big-endian: the owner tag (28 bits), then the expiry second modulo 2^20.
local function alive(v)
  local _, lo = struct.unpack('>HI4', v)
  local d = (lo % RANGE - now) % RANGE
  return d > 0 and d <= HALF
end

local function owner_of(v)
  local hi, lo = struct.unpack('>HI4', v)
  return hi * 4096 + math.floor(lo / RANGE)
end

local function left_of(v)
  local _, lo = struct.unpack('>HI4', v)
  return (lo % RANGE - now) % RANGE
end

local function level_key(base, l)
  if l == 0 then return base end
  return base .. string.char(l)
end

local len_cache = {}
local function len(key)
  local n = len_cache[key]
  if n == nil then
    n = redis.call('HLEN', key)
    len_cache[key] = n
  end
  return n
end

-- Writes pairs {f1, v1, f2, v2, ...} from `from` into key and gives it the TTL.
local function write_pairs(key, pairs_list, from, to)
  if to < from then return end
  redis.call('HSET', key, unpack(pairs_list, from, to))
  redis.call('PEXPIRE', key, key_ttl)
end

-- Rewrites a bucket with only its live entries, packed level by level; when they still fill every
-- level, drops the ones expiring soonest so that the last level has room for cap/8 more. Returns the
-- number of live entries dropped.
local function rebuild(base)
  local live = {}
  for l = 0, max_levels - 1 do
    local key = level_key(base, l)
    local all = redis.call('HGETALL', key)
    for j = 1, #all, 2 do
      if alive(all[j + 1]) then live[#live + 1] = { all[j], all[j + 1] } end
    end
    if #all > 0 then redis.call('DEL', key) end
    len_cache[key] = 0
  end
  local evicted = 0
  local room = cap * max_levels
  if #live > room - math.max(1, math.floor(cap / 8)) then
    table.sort(live, function(a, b) return left_of(a[2]) > left_of(b[2]) end)
    local keep = room - math.max(1, math.floor(cap / 8))
    evicted = #live - keep
    for j = #live, keep + 1, -1 do live[j] = nil end
  end
  for l = 0, max_levels - 1 do
    local first = l * cap + 1
    if first > #live then break end
    local last = math.min(#live, first + cap - 1)
    local flat = {}
    for j = first, last do
      flat[#flat + 1] = live[j][1]
      flat[#flat + 1] = live[j][2]
    end
    local key = level_key(base, l)
    write_pairs(key, flat, 1, #flat)
    len_cache[key] = last - first + 1
  end
  return evicted
end

-- The level holding a field, and its value; nil when no level does.
local function find(base, field)
  for l = 0, max_levels - 1 do
    local key = level_key(base, l)
    local v = redis.call('HGET', key, field)
    if v then return l, v end
    if len(key) < cap then return nil end -- no level after a level with room holds anything
  end
  return nil
end

-- The first level with room; rebuilds the bucket when every level is full. Returns level, evicted.
local function level_with_room(base)
  for l = 0, max_levels - 1 do
    if len(level_key(base, l)) < cap then return l, 0 end
  end
  local evicted = rebuild(base)
  for l = 0, max_levels - 1 do
    if len(level_key(base, l)) < cap then return l, evicted end
  end
  return max_levels - 1, evicted -- unreachable: rebuild leaves room
end

if mode == 's' then
  local marker = KEYS[1]
  local slot = ARGV[6]
  if redis.call('GET', marker) == slot then return { 'skipped', 0 } end
  redis.call('SET', marker, slot, 'PX', key_ttl)
  local removed = 0
  for k = 2, #KEYS do
    local base = KEYS[k]
    local stale = false
    for l = 0, max_levels - 1 do
      local key = level_key(base, l)
      local all = redis.call('HGETALL', key)
      if #all == 0 then break end
      for j = 2, #all, 2 do
        if not alive(all[j]) then stale = true removed = removed + 1 end
      end
      redis.call('PEXPIRE', key, key_ttl)
    end
    if stale then rebuild(base) end
  end
  return { '', removed }
end

local answers = {}
local evictions = 0
local released = {}
local items = ARGV[6]

for at = 1, #items, 15 do
  local base = KEYS[struct.unpack('>H', items, at)]
  local field = string.sub(items, at + 2, at + 8)
  local value = string.sub(items, at + 9, at + 14)

  if mode == 'c' and len(base) < cap then
    -- The common case: only the first level can hold the id; HSETNX decides a new id in one call.
    local set = redis.pcall('HSETNX', base, field, value)
    if type(set) == 'table' and set.err then
      -- Refused (out of memory): nothing was written yet; answer what can be answered without writing.
      local v = redis.call('HGET', base, field)
      if not (v and alive(v)) then return redis.error_reply(set.err) end
      answers[#answers + 1] = owner_of(v) == owner_of(value) and '\1' or '\2'
    elseif set == 1 then
      local n = len(base)
      if n == 0 then redis.call('PEXPIRE', base, key_ttl) end
      len_cache[base] = n + 1
      answers[#answers + 1] = '\0'
    else
      local v = redis.call('HGET', base, field)
      if alive(v) then
        answers[#answers + 1] = owner_of(v) == owner_of(value) and '\1' or '\2'
      else
        redis.call('HSET', base, field, value)
        answers[#answers + 1] = '\0'
      end
    end
  else
    local l, found = find(base, field)
    local live = found and alive(found)
    if mode == 'r' then
      if live and owner_of(found) == owner_of(value) then
        local key = level_key(base, l)
        local was_full = len(key) >= cap
        redis.call('HDEL', key, field)
        len_cache[key] = nil
        released[#released + 1] = field
        if was_full and l < max_levels - 1 and len(level_key(base, l + 1)) > 0 then
          rebuild(base) -- keep every level before a non-empty one full
        end
        answers[#answers + 1] = '\1'
      else
        answers[#answers + 1] = '\0'
      end
    elseif live then
      answers[#answers + 1] = owner_of(found) == owner_of(value) and '\1' or '\2'
    elseif found then
      redis.call('HSET', level_key(base, l), field, value) -- an expired claim of the same id
      answers[#answers + 1] = '\0'
    else
      local target, evicted = level_with_room(base)
      evictions = evictions + evicted
      local key = level_key(base, target)
      local n = len(key)
      redis.call('HSET', key, field, value)
      if n == 0 then redis.call('PEXPIRE', key, key_ttl) end
      len_cache[key] = n + 1
      answers[#answers + 1] = '\0'
    end
  end
end

if mode == 'r' and #released > 0 then
  redis.call('PUBLISH', ARGV[7], table.concat(released))
end
return { table.concat(answers), evictions }
