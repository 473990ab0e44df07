-- Claims, releases or looks up ids in one table of one shard, the fingerprint layout (FingerprintTables.java).
-- Sent after guard.lua, answers.lua and records.lua, as one script.
--
-- Keys, arguments and reply: ClaimCalls.java, which builds the call.

local mode = ARGV[1]
local items = ARGV[2]
now = tonumber(ARGV[3])
local sliding = ARGV[6] == '1'
local event = ARGV[6] == 'e' -- ends count on the table's event clock, kept in its state
local every = sliding or event -- a bucket's records do not end in the order they were written
local base = tonumber(ARGV[8])
local m = #KEYS - 3
local state_key = KEYS[m + 1]
local call, pcall_ = redis.call, redis.pcall

local state = call('HMGET', state_key, 'level', 'split', 'claims', 'clock')
local level = tonumber(state[1]) or 0
local split = tonumber(state[2]) or 0
local claims = tonumber(state[3]) or 0

-- A table of event times decides by its event clock: the newest event second claimed in its namespace, never
-- ahead of the agent's clock (the wall). The shard keeps what its claims saw; the agent sends what it saw on every
-- shard, and the later of the two is the clock. A claim moves it on (below). Records are kept until the clock is a
-- window past their end (`kept_at`; while there is no clock, nothing has ended), so that a reader up to a window
-- behind the newest finds the claims of its time: an item is a copy of a kept record that ends after its own
-- event time (EventClocks.java).
local wall = now
local clock = nil
local kept_at = nil
local window = tonumber(ARGV[13])
local newest = nil -- the newest event second of the call's claims, as an offset from the wall

-- Second x's offset from the wall, in (-HALF, HALF].
local function ahead(x)
  return (x - wall + HALF) % RANGE - HALF
end

-- Whether second x is after second y (both modulo 2^28, within half the range of each other).
local function after(x, y)
  local d = (x - y) % RANGE
  return d > 0 and d <= HALF
end

-- Record rec (16 bytes) with its owner's tag and end second e instead (modulo 2^28; record bytes 13-16).
local function ended_at(rec, e)
  e = e % RANGE
  local b13 = byte(rec, 13)
  return sub(rec, 1, 12) .. string.char(b13 - b13 % 16 + math.floor(e / 16777216),
    math.floor(e / 65536) % 256, math.floor(e / 256) % 256, e % 256)
end

if event then
  clock = tonumber(state[4])
  local seen = tonumber(ARGV[14])
  if seen and (not clock or ahead(seen) > ahead(clock)) then clock = seen end
  kept_at = clock and (clock - window) % RANGE or (wall - HALF / 2) % RANGE
  now = kept_at
end

-- The agent addressed the buckets by a state that has moved since (another agent split or merged buckets):
-- an item whose bucket is another one now goes there, by its declared key if the call has it (the agent
-- declares the images of the buckets next to be split), else by its name, which only a Redis Cluster refuses.
local moved = nil -- item's first byte -> its bucket's key index, or its key's name
if ARGV[4] ~= level .. ' ' .. split then
  local span = 2 ^ base
  local low_buckets = span * 2 ^ level
  local declared = {}
  for k = 1, m do declared[struct.unpack('>I4', ARGV[5], (k - 1) * 4 + 1)] = k end
  moved = {}
  for at = 1, #items, 20 do
    local k1, k2, l1, l2 = byte(items, at, at + 3)
    local r1, r2 = byte(items, at + 11, at + 12)
    local route = (l1 * 256 + l2) % span + (r1 * 256 + r2) * span
    local b = route % low_buckets
    if b < split then b = route % (2 * low_buckets) end
    if declared[b] ~= k1 * 256 + k2 then
      if declared[b] then
        moved[at] = declared[b]
      elseif ARGV[10] == '1' then
        return { '', level, split, claims, 'stale' }
      else
        moved[at] = ARGV[11] .. struct.pack('>I4', b)
      end
    end
  end
end

-- A bucket by its key index, or by its key's name (not declared)
local function key_of(k)
  return type(k) == 'number' and KEYS[k] or k
end

local blobs = {}   -- key index -> the bucket as read (as changed by this call where it says so)
local tails = {}   -- key index -> 0-based offset of its next free slot, false when it has none
local written = {} -- key index -> field -> { rec, off }: records this call wrote into free slots
local dirty = {}   -- key index -> true when Redis holds writes of this call that blobs[k] lacks
local added = 0    -- records this call added to the table, less those its rewrites dropped
local released = {}
local values = {}  -- 'k': the found records' owner-and-end

local function bucket(k)
  local b = blobs[k]
  if b == nil then
    b = call('GET', key_of(k)) or ''
    blobs[k] = b
  end
  return b
end

local function refused(reply)
  return type(reply) == 'table' and reply.err
end

-- Writes `rec` into bucket k's next free slot, or writes the bucket again without its dead records and with
-- room to grow; returns the record's 0-based offset, or nil and the error (out of memory) when refused.
local function append(k, rec)
  local b = bucket(k)
  local tail = tails[k]
  if tail == nil then tail = first_free(b) or false end
  if tail then
    local err = refused(pcall_('SETRANGE', key_of(k), tail, rec))
    if err then return nil, err end
    local next_free = tail + REC
    tails[k] = next_free < #b and next_free or false
    dirty[k] = true
    added = added + 1
    return tail
  end
  if dirty[k] then b = call('GET', key_of(k)) or '' end
  local whole, dropped, len = rewritten(b, first_free(b) or #b, rec, every)
  local err = refused(pcall_('SET', key_of(k), whole))
  if err then return nil, err end
  blobs[k] = whole
  written[k] = nil
  dirty[k] = nil
  tails[k] = len < #whole and len or false
  added = added + 1 - dropped
  return len - REC
end

local distinct = ARGV[12] == '1'

-- Remembers the record this call wrote for `field` in bucket k, unless no item looks for it again.
local function remember(k, field, rec, off)
  if distinct then return end
  local w = written[k]
  if not w then
    w = {}
    written[k] = w
  end
  w[field] = { rec = rec, off = off }
end

-- The live record of `field` in bucket b (k), whose bytes first match at p (or nil): the string that holds it
-- and its 1-based position there, and the entry of `written` when this call wrote it; nil when there is none.
local function lookup(k, b, field, p)
  local w = not distinct and written[k] and written[k][field]
  -- a record this call wrote holds the claim while it lives at the item's time (a copy a window apart, in a table
  -- of event times, is another message)
  if w and live_at(w.rec, 1) then return w.rec, 1, w end
  p = p and find_live(b, field, p)
  if p then return b, p end
  return nil
end

local keys = KEYS
for at = 1, #items, 20 do
  local k1, k2 = byte(items, at, at + 1)
  local k = moved and moved[at] or k1 * 256 + k2
  local field = sub(items, at + 4, at + 10)
  n = n + 1
  local b = blobs[k]
  if b == nil then
    b = call('GET', type(k) == 'number' and keys[k] or k) or ''
    blobs[k] = b
  end
  local p = find(b, field, 1, true)
  -- A claim whose own end the event clock has reached is late: it is claimed for a window from the clock instead
  -- (so that its own copies that follow it are caught), and answered by what the bucket keeps.
  local late = false
  local item_at = nil -- in a table of event times, the second after which a record holds this item's claim
  if event and mode ~= 'r' then
    local e = end_at(items, at + 4)
    local second = (e - window) % RANGE
    -- the wall's second for an event time from the future
    local upto = after(second, wall) and wall or second
    item_at = after(upto, kept_at) and upto or kept_at
    if mode == 'c' then
      local off = ahead(second)
      if not newest or off > newest then newest = off end
      late = clock ~= nil and not after(e, clock)
    end
  end
  if mode == 'c' and not p and (distinct or not written[k] or not written[k][field]) then
    -- The common case: an id its bucket does not hold, written into the bucket's next free slot.
    local rec = late and ended_at(sub(items, at + 4, at + 19), clock + window) or sub(items, at + 4, at + 19)
    local tail = tails[k]
    if tail == nil then tail = first_free(b) or false end
    if tail then
      local r = pcall_('SETRANGE', type(k) == 'number' and keys[k] or k, tail, rec)
      if type(r) == 'table' then return redis.error_reply(r.err) end
      local next_free = tail + REC
      tails[k] = next_free < #b and next_free or false
      dirty[k] = true
      added = added + 1
      remember(k, field, rec, tail)
    else
      local off, err = append(k, rec)
      if not off then return redis.error_reply(err) end
      remember(k, field, rec, off)
    end
    if answers then answers[n] = '\0' end
  else
    if item_at then now = item_at end
    local held, q, mine = lookup(k, b, field, p)
    if item_at then now = kept_at end
    if mode == 'c' then
      if q then
        answered(owner_at(held, q) == owner_at(items, at + 4) and '\1' or '\2')
        if sliding and not mine then
          -- Renewed in place: the holder's tag with the item's end (record bytes 13-16).
          local was, asked = byte(held, q + 12), byte(items, at + 16)
          local err = refused(pcall_('SETRANGE', key_of(k), q + 11,
            string.char(was - was % 16 + asked % 16) .. sub(items, at + 17, at + 19)))
          if err then return redis.error_reply(err) end
          dirty[k] = true
        end
      else
        local rec = late and ended_at(sub(items, at + 4, at + 19), clock + window) or sub(items, at + 4, at + 19)
        local off, err = append(k, rec)
        if not off then return redis.error_reply(err) end
        remember(k, field, rec, off)
        if answers then answers[n] = '\0' end
      end
    elseif mode == 'r' then
      if q and owner_at(held, q) == owner_at(items, at + 4) then
        -- A release writes no record, so the claim released is in the bucket as read (or as this call left it).
        call('SETRANGE', key_of(k), q + 8, TOMB)
        blobs[k] = sub(b, 1, q + 8) .. TOMB .. sub(b, q + 16)
        released[#released + 1] = field
        answered('\1')
      elseif answers then
        answers[n] = '\0'
      end
    else
      if q then
        answered(owner_at(held, q) == owner_at(items, at + 4) and '\1' or '\2')
        values[#values + 1] = sub(held, q + 9, q + 15)
      elseif answers then
        answers[n] = '\0'
      end
    end
  end
end

if added ~= 0 then
  if not state[3] then call('SADD', KEYS[m + 2], ARGV[9]) end
  claims = call('HINCRBY', state_key, 'claims', added)
end
if #released > 0 then call('PUBLISH', ARGV[7], concat(released)) end
if newest then
  -- The clock moves to the call's newest event second, but not past the wall.
  if newest > 0 then newest = 0 end
  if not clock or newest > ahead(clock) then clock = (wall + newest) % RANGE end
end
if clock and clock ~= tonumber(state[4]) then call('HSET', state_key, 'clock', clock) end
-- A table of event times adds its clock to the reply (nil ends the reply before it elsewhere).
if mode == 'k' then return { verdicts(), level, split, claims, concat(values), clock } end
return { verdicts(), level, split, claims, '', clock }
