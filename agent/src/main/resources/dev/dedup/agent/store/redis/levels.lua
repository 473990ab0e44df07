-- The levels of a fingerprint bucket: what dedup.lua (claims, releases) and sweep.lua (the hourly sweep)
-- share. The agent sends this part before the script (after guard.lua for dedup.lua), as one script. Layout:
-- FingerprintBuckets.java.
--
-- A bucket is a chain of levels: the hash KEYS[b], then KEYS[b] .. '\1', '\2', ... A level holds at most
-- `cap` entries, and a level beyond the first holds entries only while every level before it is full:
-- so while the first level has room (nearly always) an id can only be there. Here a bucket is named by b,
-- the index of its first level in KEYS.
--
-- On a Redis Cluster every level is declared: KEYS[b + l] is level l, for l = 0 .. max_levels - 1. While a
-- slot migrates its keys move one MIGRATE batch at a time, and Redis redirects (ASK) or refuses (TRYAGAIN) a
-- call by the keys it declares only: a level left undeclared would be read as empty on the node it has not
-- reached yet. So a claim or release declares its buckets' first levels only and, before it writes anything,
-- asks for the rest when a bucket may need them (dedup.lua); the sweep declares every level. On standalone
-- shards only level 0 is declared and the others are named from it.
--
-- Marked buckets (standalone shards whose layout record is v2, FingerprintBuckets.java): a bucket is its
-- one hash KEYS[b] until that holds `cap` entries. Then it is marked: the hash moves to KEYS[b] .. '\0', a
-- string (the mark) takes its name, and its levels are KEYS[b] .. '\0', '\1', ... as above. So a claim's
-- HSETNX on KEYS[b] either decides the id alone (the bucket has no other level) or fails WRONGTYPE (it
-- has): no length need be read first, which was half the calls of a new id. A bucket is marked when one
-- of the new claims that read its length (one in 8) finds it full, so it may hold a few more than `cap`
-- before (FingerprintBuckets keeps `cap` 34 below the server's hash-max-listpack-entries). The mark has no
-- TTL; the sweep unmarks a bucket whose claims fit its first level again.
--
-- The script that follows sets these from its arguments before it calls anything here:
local now        -- whole seconds, the agent's clock
local key_ttl    -- TTL in milliseconds given to level keys when written or swept
local cap        -- entries per level
local max_levels -- most levels per bucket
local declared   -- true when every level of a bucket is in KEYS (a Redis Cluster)
local first_only -- true when KEYS holds each bucket's first level only, on a Redis Cluster (dedup.lua)
local marked     -- true when buckets may be marked (standalone shards, layout v2)

local layered = {} -- bucket b -> true when it is marked, false when not; nil until known (marked only)

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

-- Level l's key of bucket b.
local function level_key(b, l)
  if declared then return KEYS[b + l] end
  if layered[b] then return KEYS[b] .. string.char(l) end
  if l == 0 then return KEYS[b] end
  if first_only then error('DEDUPLEVELS level ' .. l .. ' of ' .. KEYS[b] .. ' is not declared') end
  return KEYS[b] .. string.char(l)
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
--
-- A level it writes is never emptied first: on a Redis Cluster, a script may not create a key in a slot
-- being migrated away, so a deleted level could not be written again and its claims would be lost. Each
-- level is cleared of the entries it no longer keeps (but one, when that would empty it), written, then
-- rid of the one kept back: it never holds more than cap + 1 entries, so it stays a listpack.
local function rebuild(b)
  local live = {}
  local old = {}
  local seen = {}
  for l = 0, max_levels - 1 do
    local all = redis.call('HGETALL', level_key(b, l))
    old[l] = all
    for j = 1, #all, 2 do
      if alive(all[j + 1]) and not seen[all[j]] then
        seen[all[j]] = true
        live[#live + 1] = { all[j], all[j + 1] }
      end
    end
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
    local key = level_key(b, l)
    local first = l * cap + 1
    local last = math.min(#live, first + cap - 1)
    local flat = {}
    local kept = {}
    for j = first, last do
      flat[#flat + 1] = live[j][1]
      flat[#flat + 1] = live[j][2]
      kept[live[j][1]] = true
    end
    local gone = {}
    local all = old[l]
    for j = 1, #all, 2 do
      if not kept[all[j]] then gone[#gone + 1] = all[j] end
    end
    local held = nil
    if #flat > 0 and #gone > 0 and #gone * 2 == #all then held = table.remove(gone) end
    if #gone > 0 then redis.call('HDEL', key, unpack(gone)) end
    write_pairs(key, flat, 1, #flat)
    if held then redis.call('HDEL', key, held) end
    len_cache[key] = #flat / 2
  end
  return evicted
end

-- Whether bucket b is marked (always false unless `marked`): its first key's type, read once a call.
local function is_layered(b)
  local m = layered[b]
  if m == nil then
    m = marked and redis.call('TYPE', KEYS[b])['ok'] == 'string'
    layered[b] = m
  end
  return m
end

-- Marks bucket b, whose hash KEYS[b] holds `held` entries: the hash becomes its first level (keeping its
-- TTL), the mark takes its name.
local function mark(b, held)
  local first = KEYS[b] .. '\0'
  redis.call('RENAME', KEYS[b], first)
  redis.call('SET', KEYS[b], 'dedup-levels')
  len_cache[KEYS[b]] = nil
  layered[b] = true
  len_cache[first] = held
end

-- Unmarks bucket b when its claims fit its first level with a quarter of it to spare: the first level
-- takes the bucket's name again, replacing the mark (or the mark goes, with no claims left).
local function unmark(b)
  if not layered[b] or len(level_key(b, 1)) > 0 then return end
  local first = level_key(b, 0)
  local n = len(first)
  if n > cap - math.floor(cap / 4) then return end
  if n == 0 then
    redis.call('DEL', KEYS[b])
  else
    redis.call('RENAME', first, KEYS[b])
  end
  len_cache[first] = nil
  layered[b] = false
  len_cache[KEYS[b]] = n
end
