-- The guard every claim, release, resize, sweep and range script runs first (sent before it, as one script): the
-- shard must hold the topology record the agent expects, else nothing is read or written and the call fails
-- with DEDUPTOPOLOGY. A shard that restarted empty, was flushed or replaced has no record: its ids cannot
-- be decided until an operator accepts the loss (Topology.java).
--
-- Its key and argument come last in the call's: GuardedPort (GuardedPort.java) appends them.

local expected_topology = ARGV[#ARGV]
local held_topology = redis.call('GET', KEYS[#KEYS])
if held_topology ~= expected_topology then
  return redis.error_reply('DEDUPTOPOLOGY shard ' .. (held_topology and ('holds the record "' .. held_topology
    .. '", not "' .. expected_topology .. '"') or 'has no topology record (it lost its data, or was never stamped)'))
end

