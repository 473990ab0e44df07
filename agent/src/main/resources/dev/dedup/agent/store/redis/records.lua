-- A fingerprint bucket and its records: what claims.lua, table.lua and sweep.lua share. The agent sends this
-- part before each of them, as one script. The Java side: FingerprintTable.java (Records) (and the item a call carries).
--
-- A bucket is a Redis string of 16-byte slots. A record is
--   bytes  1-7   the id's field (the top 56 bits of its key)
--   bytes  8-9   16 bits of the id's route above the table's base bits, by which a split divides a bucket
--   bytes 10-16  the owner's 28-bit tag, then the second its claim ends, modulo 2^28
-- Records come first, in the order they were written (so, in a table whose claims all last one window,
-- in the order they end), then free slots of zero bytes up to the end of the string, which Redis allocates
-- whole anyway. A released record keeps its field and has zeros for owner and end: a tombstone.
-- An owner tag is never 0, so a record is never a free slot or a tombstone.

local REC = 16
local RANGE = 268435456 -- ends are kept modulo 2^28 seconds (8.5 years)
local HALF = 134217728
local FREE = string.rep('\0', REC)
local TOMB = string.rep('\0', 7)
local byte, sub, find, concat = string.byte, string.sub, string.find, table.concat

local now -- whole seconds modulo 2^28, the agent's clock; set by the script that follows

-- The second the record at p (1-based) of b ends, modulo 2^28.
local function end_at(b, p)
  local b12, b13, b14, b15 = byte(b, p + 12, p + 15)
  return ((b12 % 16) * 256 + b13) * 65536 + b14 * 256 + b15
end

-- The record's owner tag; 0 for a tombstone.
local function owner_at(b, p)
  local b9, b10, b11, b12 = byte(b, p + 9, p + 12)
  return ((b9 * 256 + b10) * 256 + b11) * 16 + (b12 - b12 % 16) / 16
end

-- Whether the record at p still holds a claim: not a tombstone, and ending after now (within half the range,
-- so that an end that wrapped around can never pass for a live one).
local function live_at(b, p)
  if owner_at(b, p) == 0 then return false end
  local d = (end_at(b, p) - now) % RANGE
  return d > 0 and d <= HALF
end

-- The 1-based position of the live record of `field` in b, looking from `from` (a match of the field's bytes,
-- or 1), or nil.
local function find_live(b, field, from)
  local p = from == 1 and find(b, field, 1, true) or from
  while p do
    if (p - 1) % REC == 0 and live_at(b, p) then return p end
    p = find(b, field, p + 1, true)
  end
  return nil
end

-- The 0-based offset of b's first free slot, or nil when it has none.
local function first_free(b)
  local p = find(b, FREE, 1, true)
  while p and (p - 1) % REC ~= 0 do p = find(b, FREE, p + 1, true) end
  return p and p - 1
end

-- Bytes the allocator gives a string of `len` bytes (jemalloc's size classes, with the string's header and
-- terminator), less those: what a string may hold without taking more memory.
local function room(len)
  local need = len + (len < 250 and 4 or 6)
  local size
  if need <= 128 then
    size = need + (16 - need % 16) % 16
  else
    local step = 32
    while step * 8 < need do step = step * 2 end
    size = need + (step - need % step) % step
  end
  return size - (size - (len < 250 and 4 or 6)) % REC - (len < 250 and 4 or 6)
end

-- What bucket b (whose records end at byte `stop`) keeps when it is written again: its records without the dead
-- ones at its front and without tombstones, as a list of strings to concatenate, and how many records that drops.
-- Records end in the order they were written, so the dead ones are at the front; one that lives longer (another
-- agent's clock) only delays the others' removal. In a table whose window slides, where a repeat renews a record
-- in place, `every` looks at every record instead.
local function kept(b, stop, every)
  local parts, dropped = {}, 0
  if every then
    for p = 1, stop, REC do
      if live_at(b, p) then parts[#parts + 1] = sub(b, p, p + REC - 1) else dropped = dropped + 1 end
    end
    return parts, dropped
  end
  local from = 1
  while from <= stop and not live_at(b, from) do from = from + REC end
  dropped = (from - 1) / REC
  local t = find(b, TOMB, from, true)
  while t and t <= stop do
    local p = t - 9
    if p % REC == 1 and p >= from then
      if p > from then parts[#parts + 1] = sub(b, from, p - 1) end
      from = p + REC
      dropped = dropped + 1
      t = find(b, TOMB, from, true)
    else
      t = find(b, TOMB, t + 1, true)
    end
  end
  if from <= stop then
    parts[#parts + 1] = (from == 1 and stop == #b) and b or sub(b, from, stop)
  end
  return parts, dropped
end

-- Bucket b (records ending at byte `stop`) as written again with `rec` appended: its kept records, `rec`, and
-- free slots up to what the string's allocation holds, at least one in 16 of its records; and the records
-- dropped. One string is made, whatever the parts.
local function rewritten(b, stop, rec, every)
  local parts, dropped = kept(b, stop, every)
  local len = 0
  for i = 1, #parts do len = len + #parts[i] end
  if rec then
    parts[#parts + 1] = rec
    len = len + #rec
  end
  if len == 0 then return '', dropped end
  local size = room(len + (1 + math.floor(len / REC / 16)) * REC)
  parts[#parts + 1] = string.rep('\0', size - len)
  return concat(parts), dropped, len
end
