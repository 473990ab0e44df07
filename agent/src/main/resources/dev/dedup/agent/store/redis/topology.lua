-- Reads, stamps or advances the topology record of one shard: which deployment it belongs to and where it
-- stands in the shard list. The layouts' scripts refuse to run on a shard whose record is not the one the
-- agent expects (a shard that lost its data, or stands elsewhere in another agent's list). Layout:
-- Topology.java.
--
-- KEYS[1]    the record's key
-- ARGV[1]    '' to read; else the record to write when the shard has none
-- ARGV[2]    (optional) a record to replace by ARGV[1]: the shard's record before a declared change of the
--            shard list, advanced at the cut-over
--
-- Returns { the record the shard holds now }, or { '' } when it holds none.

local held = redis.call('GET', KEYS[1])
if ARGV[2] and held == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[1])
  return { ARGV[1] }
end
if held or ARGV[1] == '' then return { held or '' } end
redis.call('SET', KEYS[1], ARGV[1])
return { ARGV[1] }
