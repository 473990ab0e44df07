-- Checks or commits ranges of sequence numbers of one stream; the layout: RedisRanges.java. Sent after
-- guard.lua, as one script.
--
-- The stream's key holds its live intervals, sorted, disjoint and never touching, each
-- "<from> <to> <end second>\n" (decimal sequence numbers without leading zeros). Sequence numbers are compared
-- as decimal strings: the shorter is smaller, else the lexicographic order. A commit merges every range with the
-- intervals it overlaps or touches, the result ending at the commit's end second, and sets the key to expire
-- with its last interval.
--
-- Keys, arguments and reply: RedisRanges.call (RedisRanges.java), which builds the call.

local mode = ARGV[1]
local now = tonumber(ARGV[2])

local function lt(a, b)
  if #a ~= #b then return #a < #b end
  return a < b
end

local intervals = {}
local stored = redis.call('GET', KEYS[1])
if stored then
  for f, t, e in string.gmatch(stored, '(%d+) (%d+) (%d+)\n') do
    if tonumber(e) > now then intervals[#intervals + 1] = { f, t, e } end
  end
end

if mode == 'k' then
  local out = {}
  for at = 5, #ARGV - 1, 4 do
    local f, t = ARGV[at], ARGV[at + 1]
    local parts = {}
    for _, iv in ipairs(intervals) do
      if lt(t, iv[1]) then break end
      if not lt(iv[2], f) then
        parts[#parts + 1] = (lt(iv[1], f) and f or iv[1]) .. ' ' .. (lt(t, iv[2]) and t or iv[2]) .. '\n'
      end
    end
    out[#out + 1] = table.concat(parts)
  end
  return out
end

local ends = ARGV[3]
local most = tonumber(ARGV[4])
for at = 5, #ARGV - 1, 4 do
  local lo, hi, before, after = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
  local kept = {}
  local placed = false
  for _, iv in ipairs(intervals) do
    if before ~= '' and lt(iv[2], before) then
      kept[#kept + 1] = iv -- ends before from - 1: apart
    elseif lt(after, iv[1]) then
      if not placed then kept[#kept + 1] = { lo, hi, ends } placed = true end
      kept[#kept + 1] = iv -- starts after to + 1: apart
    else
      if lt(iv[1], lo) then lo = iv[1] end
      if lt(hi, iv[2]) then hi = iv[2] end
    end
  end
  if not placed then kept[#kept + 1] = { lo, hi, ends } end
  intervals = kept
end
if #intervals > most then
  return redis.error_reply('ERR dedup: the stream would hold ' .. #intervals .. ' ranges, more than '
    .. most .. '; commit ranges in order so that they merge')
end
local parts = {}
local last = now
for i, iv in ipairs(intervals) do
  parts[i] = iv[1] .. ' ' .. iv[2] .. ' ' .. iv[3] .. '\n'
  if tonumber(iv[3]) > last then last = tonumber(iv[3]) end
end
redis.call('SET', KEYS[1], table.concat(parts), 'EX', math.max(1, last - now))
return #intervals
