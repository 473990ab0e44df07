-- Reads, stamps or advances the topology record of one shard: which deployment it belongs to and where it
-- stands in the shard list (Topology.java); also the record of where a namespace keeps its claims. The
-- layouts' scripts refuse to run on a shard whose record is not the one the agent expects (guard.lua).
--
-- Keys, arguments and reply: RecordCall.java, which builds the calls.

local held = redis.call('GET', KEYS[1])
if ARGV[2] and held == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[1])
  return { ARGV[1] }
end
if held or ARGV[1] == '' then return { held or '' } end
redis.call('SET', KEYS[1], ARGV[1])
return { ARGV[1] }
