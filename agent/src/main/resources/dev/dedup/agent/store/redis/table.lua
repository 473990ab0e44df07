-- Splits or merges buckets of one table of one shard: the table grows and shrinks by linear hashing
-- (FingerprintTables.java). Sent after guard.lua and records.lua, as one script.
--
-- At level L with split pointer p the table has 2^base * 2^L + p buckets: bucket q < p has been split into q
-- and its image q + 2^base * 2^L by bit L of the records' stored route (records.lua); the others have not.
-- Splitting takes the next p; merging undoes the last split. Either keeps every record that still holds a claim
-- and drops the others.
--
-- Keys, arguments and reply: TableResizing.resize (TableResizing.java), which builds the call.

local op = ARGV[1]
now = tonumber(ARGV[3])
local span = 2 ^ tonumber(ARGV[4])
local every = ARGV[5] ~= '0'
local state_key = KEYS[1]
local call = redis.call

local state = call('HMGET', state_key, 'level', 'split', 'claims', 'clock')
local level = tonumber(state[1]) or 0
local split = tonumber(state[2]) or 0
local claims = tonumber(state[3]) or 0
if ARGV[2] ~= level .. ' ' .. split then return { level, split, claims } end
-- In a table of event times, records are kept until its event clock is a window (ARGV[6]) past their end
-- (records.lua: RANGE, HALF), and nothing has ended while it has none.
if ARGV[5] == 'e' then
  local clock = tonumber(state[4])
  now = clock and (clock - tonumber(ARGV[6])) % RANGE or (now - HALF / 2) % RANGE
end

local dropped = 0

-- Writes `body` (records only) as bucket `key` with its free slots, or deletes the bucket when nothing in it
-- holds a claim. A half's front may be a record that ended behind a live one: rewriting drops it too.
local function store(key, body)
  local whole, gone = '', 0
  if #body > 0 then whole, gone = rewritten(body, #body, nil, false) end
  dropped = dropped + gone
  if #whole == 0 then
    call('DEL', key)
  else
    call('SET', key, whole)
  end
end

-- The records of a bucket that still hold claims, in order.
local function live(key)
  local b = call('GET', key) or ''
  local parts, gone = kept(b, first_free(b) or #b, every)
  dropped = dropped + gone
  return concat(parts)
end

local pairs_ = (#KEYS - 2) / 2
for i = 0, pairs_ - 1 do
  local q, image = KEYS[2 + 2 * i], KEYS[3 + 2 * i]
  if op == 's' then
    local body = live(q)
    local bit = 2 ^ level
    local stay, go = {}, {}
    for p = 1, #body, REC do
      local r1, r2 = byte(body, p + 7, p + 8)
      local rec = sub(body, p, p + REC - 1)
      if math.floor((r1 * 256 + r2) / bit) % 2 == 0 then stay[#stay + 1] = rec else go[#go + 1] = rec end
    end
    store(q, concat(stay))
    store(image, concat(go))
    split = split + 1
    if split == span * 2 ^ level then
      level = level + 1
      split = 0
    end
  else
    if split == 0 then
      if level == 0 then break end
      level = level - 1
      split = span * 2 ^ level
    end
    split = split - 1
    -- Both halves end in the order they were written: merged by end, the bucket does too.
    local a, b = live(q), live(image)
    local out, i_a, i_b = {}, 1, 1
    while i_a <= #a or i_b <= #b do
      local take_a = i_b > #b or (i_a <= #a and (end_at(a, i_a) - now) % RANGE <= (end_at(b, i_b) - now) % RANGE)
      if take_a then
        out[#out + 1] = sub(a, i_a, i_a + REC - 1)
        i_a = i_a + REC
      else
        out[#out + 1] = sub(b, i_b, i_b + REC - 1)
        i_b = i_b + REC
      end
    end
    store(q, concat(out))
    call('DEL', image)
  end
end

call('HSET', state_key, 'level', level, 'split', split)
if dropped > 0 then claims = call('HINCRBY', state_key, 'claims', -dropped) end
return { level, split, claims }
