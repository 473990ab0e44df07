-- The verdict bytes a claim or release script answers, one per item in batch order: what claims.lua and
-- timed.lua share. The agent sends this part before the script, as one script (RedisPort.Script).
--
-- The script counts its items in n and gives item n its byte with answered(a). On the path of a new claim,
-- the common one, it writes '\0' only when the table exists (`if answers then answers[n] = '\0' end`): a cold
-- call never builds it, and verdicts() is then n zero bytes.

local answers = nil -- the bytes so far; nil while every one is '\0'
local n = 0         -- items decided so far

-- Item n's verdict byte.
local function answered(a)
  if answers == nil then
    if a == '\0' then return end
    answers = {}
    for i = 1, n - 1 do answers[i] = '\0' end
  end
  answers[n] = a
end

-- The bytes of items 1 .. n, as one string.
local function verdicts()
  return answers and table.concat(answers, '', 1, n) or string.rep('\0', n)
end
