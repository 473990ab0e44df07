-- Claims or releases ids on one shard, in the fingerprint layout (FingerprintBuckets.java); sent after
-- guard.lua, levels.lua and answers.lua, as one script. While the first level of a bucket has room, one HSETNX
-- decides a new id (after a read of the level's length, unless the bucket may be marked: see levels.lua).
--
-- ARGV[1]    'c' claim, 'r' release
-- ARGV[2]    the items, 15 bytes each, in batch order: u16 bucket index (1-based: the call's i-th bucket,
--            see ARGV[9]), 7-byte field (the id's key), 6-byte value (28-bit owner tag, 20-bit expiry
--            second; a release ignores the expiry)
-- ARGV[3]    cap: entries per level
-- ARGV[4]    the channel on which released fields are published
-- ARGV[5]    now, whole seconds (the agent's clock)
-- ARGV[6]    TTL in milliseconds given to level keys when written (longest window + 2 sweeps)
-- ARGV[7]    most levels per bucket
-- ARGV[8]    '1' when the namespace's window slides: a live claim answered retry or duplicate gets the
--            item's expiry (now + window) when that is later than its own; '0' for a fixed window
-- ARGV[9]    '0' when KEYS holds level 0 of each bucket, KEYS[i], the others named from it (standalone
--            shards); '3' when it holds each bucket's first key, which is the bucket's one hash or the mark
--            of its levels (standalone shards of layout v2, levels.lua): a claim in a bucket not marked is
--            one HSETNX; on a Redis Cluster (levels.lua) '2' when it holds level 0 only, and the call answers
--            { '', -1 } without writing anything when a bucket may need another level, or '1' when it
--            holds every level of each bucket: bucket i's levels are KEYS[(i - 1) * max_levels + 1 ..]
-- KEYS[#KEYS], ARGV[10]: the topology record and its expected value, checked by guard.lua first
--
-- Returns { answers, evictions, buckets read, claims read }. Claim: one byte per item, 0 new, 1 retry,
-- 2 duplicate; evictions counts live claims dropped because every level of their bucket was full of them;
-- the last two count the distinct buckets whose first level the call read and the claims those levels held
-- then (a cold id's HSETNX searches its whole first level: the shard's CPU per id grows with the mean); in
-- buckets that may be marked, the new claims that read their bucket's length (one in 8) count instead.
-- Release: one byte per item, 1 released, 0 not held by that owner (the counts are 0); the released fields
-- are published, concatenated, on ARGV[4].

local mode = ARGV[1]
local items = ARGV[2]
cap = tonumber(ARGV[3])
now = tonumber(ARGV[5])
key_ttl = ARGV[6] -- passed on as it came: a number would be formatted back into a string at every PEXPIRE
max_levels = tonumber(ARGV[7])
local sliding = ARGV[8] == '1'
declared = ARGV[9] == '1'
first_only = ARGV[9] == '2'
marked = ARGV[9] == '3'
local stride = declared and max_levels or 1

-- A live claim `v` answered for `value`: its verdict byte; in a sliding window it is renewed in `key`
-- first, keeping its owner and taking the later of the two expiries.
local function repeat_of(key, field, v, value)
  if sliding and left_of(value) > left_of(v) then
    local _, lo = struct.unpack('>HI4', value)
    local renewed = owner_of(v) * RANGE + lo % RANGE
    redis.call('HSET', key, field, struct.pack('>HI4', math.floor(renewed / 4294967296), renewed % 4294967296))
  end
  return owner_of(v) == owner_of(value) and '\1' or '\2'
end

-- The level holding a field, and its value; nil when no level does.
local function find(b, field)
  for l = 0, max_levels - 1 do
    local key = level_key(b, l)
    local v = redis.call('HGET', key, field)
    if v then return l, v end
    if len(key) < cap then return nil end -- no level after a level with room holds anything
  end
  return nil
end

-- The first level with room; rebuilds the bucket when every level is full. Returns level, evicted.
local function level_with_room(b)
  for l = 0, max_levels - 1 do
    if len(level_key(b, l)) < cap then return l, 0 end
  end
  local evicted = rebuild(b)
  for l = 0, max_levels - 1 do
    if len(level_key(b, l)) < cap then return l, evicted end
  end
  return max_levels - 1, evicted -- unreachable: rebuild leaves room
end

-- What the call's claims find in their buckets: first levels read, and the claims they held then.
local buckets_read = 0
local claims_read = 0

-- The length of a bucket's first level; a claim call counts it in buckets_read and claims_read when it
-- first reads it.
local function first_len(base)
  local held = len_cache[base]
  if held == nil then
    held = len(base)
    if mode == 'c' then
      buckets_read = buckets_read + 1
      claims_read = claims_read + held
    end
  end
  return held
end

-- Only the first levels are declared (a Redis Cluster): a bucket whose first level is full, or would be by
-- this call's claims, may need another level, which must be declared so that a slot being migrated cannot
-- show it empty. Ask for them before anything is written.
if first_only then
  local claims = {}
  if mode == 'c' then
    for at = 1, #items, 15 do
      local b = struct.unpack('>H', items, at)
      claims[b] = (claims[b] or 0) + 1
    end
  end
  for b = 1, #KEYS - 1 do
    if first_len(KEYS[b]) + (claims[b] or 0) >= cap then return { '', -1 } end
  end
end

-- A claim whose HSETNX on `key` did not add it (`set` 0: the id is there, or an error): its verdict byte,
-- or nil and the error to answer.
local function not_added(set, key, field, value)
  if set == 0 then
    local v = redis.call('HGET', key, field)
    if alive(v) then return repeat_of(key, field, v, value) end
    redis.call('HSET', key, field, value) -- an expired claim of the same id
    return '\0'
  end
  -- Refused (out of memory): nothing was written yet; answer what can be answered without writing.
  local v = redis.call('HGET', key, field)
  if not (v and alive(v)) or sliding then return nil, set.err end
  return owner_of(v) == owner_of(value) and '\1' or '\2'
end

local evictions = 0
local released = {}
local claiming = mode == 'c'
local sub, byte = string.sub, string.byte
local keys, call, pcall_ = KEYS, redis.call, redis.pcall -- the loop's globals as locals: a lookup an id less
local sample = math.max(32, math.min(256, math.floor(4096 / cap))) -- of 256: new claims that read a length

for at = 1, #items, 15 do
  local hi, lo = byte(items, at, at + 1)
  local b = (hi * 256 + lo - 1) * stride + 1
  local base = keys[b]
  local field = sub(items, at + 2, at + 8)
  local value = sub(items, at + 9, at + 14)
  n = n + 1
  local set = nil
  if claiming and marked and not layered[b] then
    -- A bucket not known to be marked: HSETNX decides the id alone, unless the bucket is marked.
    set = pcall_('HSETNX', base, field, value)
    if set == 1 then
      -- One new claim in 8 (by its field's last byte; more below 128 claims a level, every one at 16) reads the
      -- length: to mark the bucket once full, to give a key of a few claims its TTL (the sweep gives it to
      -- those it finds without), and to count.
      if byte(field, 7) < sample then
        local held = call('HLEN', base)
        buckets_read = buckets_read + 1
        claims_read = claims_read + held - 1
        if held <= 16 then call('PEXPIRE', base, key_ttl) end
        if held >= cap then mark(b, held) end
      end
      if answers then answers[n] = '\0' end
    elseif set ~= 0 and (string.find(set.err, 'WRONGTYPE', 1, true) == 1 or is_layered(b)) then
      -- The bucket is marked (a refusal, out of memory, comes before the type is checked: is_layered
      -- asks): decided with its levels below.
      layered[b] = true
      set = nil
    else
      local answer, err = not_added(set, base, field, value)
      if err then return redis.error_reply(err) end
      answered(answer)
    end
  end
  if set == nil then
    if marked and is_layered(b) then base = level_key(b, 0) end
    local fl = nil
    if claiming then fl = first_len(base) end

    if fl and fl < cap then
      -- Only the first level can hold the id; HSETNX decides a new id in one call.
      local added = pcall_('HSETNX', base, field, value)
      if added == 1 then
        if fl == 0 then call('PEXPIRE', base, key_ttl) end
        len_cache[base] = fl + 1
        answered('\0')
      else
        local answer, err = not_added(added, base, field, value)
        if err then return redis.error_reply(err) end
        answered(answer)
      end
    else
      local l, found = find(b, field)
      local live = found and alive(found)
      if mode == 'r' then
        if live and owner_of(found) == owner_of(value) then
          local key = level_key(b, l)
          local was_full = len(key) >= cap
          call('HDEL', key, field)
          len_cache[key] = nil
          released[#released + 1] = field
          if was_full and l < max_levels - 1 and len(level_key(b, l + 1)) > 0 then
            rebuild(b) -- keep every level before a non-empty one full
          end
          answered('\1')
        else
          answered('\0')
        end
      elseif live then
        answered(repeat_of(level_key(b, l), field, found, value))
      elseif found then
        call('HSET', level_key(b, l), field, value) -- an expired claim of the same id
        answered('\0')
      else
        local target, evicted = level_with_room(b)
        evictions = evictions + evicted
        local key = level_key(b, target)
        local held = len(key)
        call('HSET', key, field, value)
        if held == 0 then call('PEXPIRE', key, key_ttl) end
        len_cache[key] = held + 1
        answered('\0')
      end
    end
  end
end

if mode == 'r' and #released > 0 then
  redis.call('PUBLISH', ARGV[4], table.concat(released))
end
return { verdicts(), evictions, buckets_read, claims_read }
