#!/usr/bin/env python3
"""What a new id costs Redis in several ways of laying claims out, as the shard fills: where the fingerprint tables'
cost per id comes from, and what a layout must avoid for that cost to stay flat.

Usage: loadtest/dev/layouts.py measure [LAYOUT ...]
       loadtest/dev/layouts.py rewrite
       loadtest/dev/layouts.py simulate

measure  For each fill of FILLS (live claims on one shard; 33M on one of three shards is 100 M in all), a fresh
         redis-server is filled with that many claims in calls of 1,000 ids (not measured), then IDS new ids are
         claimed in calls of CALL_IDS (a batch of 1,000 split over three shards) and measured: the server's CPU
         time per new id, ids/s, and used_memory per claim it holds. Each call is one Lua script over its ids,
         as the agent sends them (20-byte items: 4 bytes that place the id, the 16-byte record). LAYOUTs:

           buckets     a string per bucket of ~CLAIMS records, as the fingerprint tables keep them: GET the
                       bucket, look for the id's field, SETRANGE the record into a free slot (SET the bucket
                       longer when it has none). The bucket count is fixed for the row.
           hashes      a hash per bucket of ~CLAIMS fields (a listpack), one HSETNX per id.
           blocks      1 MiB strings cut into 128-byte blocks of 8 slots, sized for 80 % of their slots:
                       GETRANGE the id's block, SETRANGE a free slot.
           two-blocks  1 MiB strings cut into 256-byte blocks of 16 slots, sized for 80 %: GETRANGE the id's
                       two blocks (two choices), SETRANGE the record into the emptier.

           directory   extendible hashing over blocks of 16 slots and a byte (the block's local depth) in
                       strings of just under 1 MiB, allocated in order: GETRANGE the id's directory entry (4
                       bytes, indexed by the low bits of its placement), GETRANGE the block, SETRANGE a free slot;
                       a full block splits by the next bit, into a new block at the end of the last string, and
                       the directory doubles (GET + APPEND of itself) when the block's depth is the directory's.
                       Nothing to size: the first call makes the first block.
           directory-paged  the same, the directory in strings of 65,536 entries: past the first, a doubling
                       copies them one a call (COPY), an upper string read from its lower until it is copied.
           directory-8, directory-8-paged  the same with blocks of 8 slots.

           tagged      a string per bucket of ~CLAIMS records, as buckets, laid out as 2 bytes (C, its slots), C
                       one-byte tags (the last byte of the id's field; 0 is a free slot), then C records of 16 bytes:
                       GETRANGE the header and tags (the first 2 + C bytes of a bucket at 1.25 x CLAIMS; a second
                       GETRANGE for the rest of a longer tag area), GETRANGE the field of each record whose tag
                       matches, SETRANGE the tag and SETRANGE the record into the first free slot; a full bucket is
                       written again (SET) with room, as claims.lua's room() gives it. The bucket count is fixed.
           tagged-one  the same with the records from the string's end backward, so that everything between the
                       first free tag and its record is free: one SETRANGE writes the tag, zeros and the record.

         A layout may be named NAME@S: CLAIMS is S for it alone (tagged@192). `tapjoy` in the list runs Tapjoy's
         script once, as scripts.py's tapjoy harness sends it (TAPJOY_SECONDS of 33,334 ids in batches of 1,000).

         blocks and two-blocks never grow: an id whose blocks are full is counted (full) and not written.
         They measure what reading a block at an offset of a long string costs, not a whole design.
         Every row also gives the slowest call of the fill and of the measure (the server's slow log, calls of
         SLOWLOG_US or more); the directory layouts give the splits per new id, the directory's entries and the
         blocks at the end, and the longest doubling of the row (inside the script, by TIME).

rewrite  The cost of moving records: a 64 KiB string of 256 blocks at 90 % is read and written back as 320
         blocks by two choices, ROUNDS times; CPU per record moved. Any layout of fixed blocks that grows moves
         records this way.

simulate No server. How full fixed-capacity blocks get before an id finds no room, for the ways such a table
         could grow: linear probing over blocks (a block once passed over stays marked, so that a look-up knows
         to go on), two choices in a table of fixed size, and two choices under linear hashing (the table splits
         one block at a time, as the fingerprint tables split buckets).

         FILL_BY=direct fills the bucket and block layouts without their scripts: the strings the claims would have
         left (each bucket's records a Poisson count of the row's mean, at the length the script's growth gives that
         count) are made here and SET, ten times faster than the calls (the default, FILL_BY=calls).
         COUNT=instructions runs each server under callgrind (CALLGRIND_ARGS added to its options, e.g.
         '--cache-sim=yes --LL=8388608,16,64'), counting only the measured calls, after WARM_CALLS calls counted
         for nothing (they fill the simulated caches); it reports instructions, and with --cache-sim D1 and LL
         data misses (reads and writes), per new id.

Environment: FILLS ("0 10M 33M"), IDS (1M), CALL_IDS (333), CLAIMS (48), SLOWLOG_US (2000), ROUNDS (50, rewrite),
FILL_BY (calls), COUNT (cpu), CALLGRIND_ARGS (), WARM_CALLS (30), TAPJOY_SECONDS (8), REDIS_SERVER (redis-server). Each server runs on a free port (never 6379), keeps nothing on disk, and is
stopped by its PID however the run ends. Python standard library only.
"""
import bisect
import math
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager

from scripts import SCRIPTS, Server, control, encode

# The agent's records.lua first (REC, FREE, first_free and the string functions), as its scripts have it.
RECORDS = os.path.join(SCRIPTS, 'records.lua')
COMMON = open(RECORDS).read() + r'''
local items = ARGV[1]
local count = tonumber(ARGV[2])
local call = redis.call
local new, full = 0, 0
local function place(at)
  local a, b, c, d = byte(items, at, at + 3)
  return ((a * 256 + b) * 256 + c) * 256 + d
end
local function holds(b, field)
  local p = find(b, field, 1, true)
  while p and (p - 1) % REC ~= 0 do p = find(b, field, p + 1, true) end
  return p
end
'''

# The block layouts' part: block s of strings of ARGV[3] blocks of ARGV[4] bytes, its key, offset and bytes.
BLOCK = COMMON + r'''
local per_string, size = tonumber(ARGV[3]), tonumber(ARGV[4])
local function block(s)
  local key, off = 's' .. math.floor(s / per_string), (s % per_string) * size
  return key, off, call('GETRANGE', key, off, off + size - 1)
end
'''

LAYOUTS = {
    'buckets': COMMON + r'''
for at = 1, #items, 20 do
  local key = 'b' .. place(at) % count
  local b = call('GET', key) or ''
  if not holds(b, sub(items, at + 4, at + 10)) then
    local rec = sub(items, at + 4, at + 19)
    local t = first_free(b)
    if t then
      call('SETRANGE', key, t, rec)
    else
      call('SET', key, b .. rec .. string.rep(FREE, 1 + math.floor(#b / REC / 16)))
    end
    new = new + 1
  end
end
return {new, full}
''',
    'hashes': COMMON + r'''
for at = 1, #items, 20 do
  if call('HSETNX', 'h' .. place(at) % count, sub(items, at + 4, at + 10), sub(items, at + 13, at + 19)) == 1 then
    new = new + 1
  end
end
return {new, full}
''',
    'blocks': BLOCK + r'''
for at = 1, #items, 20 do
  local key, off, b = block(place(at) % count)
  if not holds(b, sub(items, at + 4, at + 10)) then
    local t = first_free(b)
    if t then call('SETRANGE', key, off + t, sub(items, at + 4, at + 19)) else full = full + 1 end
    new = new + 1
  end
end
return {new, full}
''',
    'two-blocks': BLOCK + r'''
for at = 1, #items, 20 do
  local a, b_, c, d = byte(items, at + 11, at + 14)
  local k1, o1, b1 = block(place(at) % count)
  local k2, o2, b2 = block((((a * 256 + b_) * 256 + c) * 256 + d) % count)
  local field = sub(items, at + 4, at + 10)
  if not holds(b1, field) and not holds(b2, field) then
    local f1, f2 = first_free(b1), first_free(b2)
    local rec = sub(items, at + 4, at + 19)
    if f1 and (not f2 or f1 <= f2) then
      call('SETRANGE', k1, o1 + f1, rec)
    elseif f2 then
      call('SETRANGE', k2, o2 + f2, rec)
    else
      full = full + 1
    end
    new = new + 1
  end
end
return {new, full}
''',
}

# Extendible hashing over fixed blocks in long strings. ARGV: 3 slots a block, 4 directory entries a directory
# string (0: the directory is one string), 5 a page's bytes. Keys: 'm' ("depth blocks copying"), the directory
# ('dir', or 'dir0', 'dir1', ... of ARGV[4] entries each) and the pages of blocks 'p0', 'p1', ... A block is
# its slots then a byte, its local depth: a claim reads it with the block and a split writes it with the block,
# so that keeping it costs no command.
LAYOUTS['directory'] = COMMON + r'''
local SLOTS, DIR_PAGE = tonumber(ARGV[3]), tonumber(ARGV[4])
local SIZE = SLOTS * REC + 1
local PER_PAGE = math.floor(tonumber(ARGV[5]) / SIZE)
local char, rep, floor, format = string.char, string.rep, math.floor, string.format
-- Numbers go to Redis and into key names as text made by %d: Lua's own conversion, for a number handed to
-- redis.call or joined to a string, prints it as a double (%.14g), several times the instructions.
local function int(n) return format('%d', n) end
local splits, doublings, double_us = 0, 0, 0

local state = call('GET', 'm')
local d, nb, copying
if state then
  local a, b, c = string.match(state, '(%d+) (%d+) (%d+)')
  d, nb, copying = tonumber(a), tonumber(b), tonumber(c)
else
  d, nb, copying = 0, 1, 0
  call('SETRANGE', 'p0', int(PER_PAGE * SIZE - 1), '\0')
  call('SET', DIR_PAGE == 0 and 'dir' or 'dir0', '\0\0\0\0')
end
local d0, nb0, copying0 = d, nb, copying

-- The directory: entry i (the id's low d placement bits) is a block's number, 4 bytes. In strings of DIR_PAGE
-- entries, a doubling past the first string copies no string at once: until the call that copies it (one a
-- call, from `copying` on), a string of the upper half is read from the one it copies, and copied when first
-- written.
local function dir_key(i)
  if DIR_PAGE == 0 then return 'dir', i * 4, nil end
  local q = floor(i / DIR_PAGE)
  return 'dir' .. int(q), (i % DIR_PAGE) * 4, q
end
local function entry(i)
  local key, off, q = dir_key(i)
  local s = call('GETRANGE', key, int(off), int(off + 3))
  if s == '' then s = call('GETRANGE', 'dir' .. int(q - 2 ^ (d - 1) / DIR_PAGE), int(off), int(off + 3)) end
  local a, b, c, e = byte(s, 1, 4)
  return ((a * 256 + b) * 256 + c) * 256 + e
end
local function set_entry(i, address)
  local key, off, q = dir_key(i)
  if copying > 0 and q >= copying then call('COPY', 'dir' .. int(q - 2 ^ (d - 1) / DIR_PAGE), key) end
  call('SETRANGE', key, int(off), address)
end
local function copy_next()
  local half = 2 ^ (d - 1) / DIR_PAGE
  call('COPY', 'dir' .. int(copying - half), 'dir' .. int(copying))
  copying = copying + 1
  if copying == 2 * half then copying = 0 end
end
local function double()
  local t0 = call('TIME')
  while copying > 0 do copy_next() end
  local n = 2 ^ d
  if DIR_PAGE == 0 or n < DIR_PAGE then
    local key = dir_key(0)
    call('APPEND', key, call('GET', key))
  else
    copying = n / DIR_PAGE
  end
  d = d + 1
  local t1 = call('TIME')
  double_us = math.max(double_us, (tonumber(t1[1]) - tonumber(t0[1])) * 1e6 + tonumber(t1[2]) - tonumber(t0[2]))
  doublings = doublings + 1
end

local function block_at(n)
  return 'p' .. int(floor(n / PER_PAGE)), (n % PER_PAGE) * SIZE
end
local function be32(n)
  return char(floor(n / 16777216) % 256, floor(n / 65536) % 256, floor(n / 256) % 256, n % 256)
end
-- An id's placement bits, from its record at p: the 16 route bits (bytes 8-9) low, the field's first two bytes
-- above them. A record carries all of them, so a split needs nothing but the block.
local function placement(s, p)
  local f1, f2 = byte(s, p, p + 1)
  local r1, r2 = byte(s, p + 7, p + 8)
  return ((f1 * 256 + f2) * 256 + r1) * 256 + r2
end

-- Splits block n (full, its bytes b) by bit l, its local depth, of its ids' placement (whose low l bits are
-- `low`): the records whose bit l is 1 go to a new block at the end of the last page, and the directory
-- entries that pointed to n with bit l set (2^(d - l - 1) of them, every other one) to the new block. The
-- directory doubles first when l is its depth. Returns the two blocks' numbers and bytes.
local function split(n, b, low)
  local l = byte(b, SIZE)
  if l == d then double() end
  local bit = 2 ^ l
  local stay, move = {}, {}
  for p = 1, SIZE - 1, REC do
    if floor(placement(b, p) / bit) % 2 == 1 then move[#move + 1] = sub(b, p, p + REC - 1)
    else stay[#stay + 1] = sub(b, p, p + REC - 1) end
  end
  local m = nb
  nb = nb + 1
  local key, off = block_at(n)
  local mkey, moff = block_at(m)
  if moff == 0 then call('SETRANGE', mkey, int(PER_PAGE * SIZE - 1), '\0') end
  local depth = char(l + 1)
  local kept = concat(stay) .. rep(FREE, SLOTS - #stay) .. depth
  local moved = concat(move) .. rep(FREE, SLOTS - #move) .. depth
  call('SETRANGE', key, int(off), kept)
  call('SETRANGE', mkey, int(moff), moved)
  local address = be32(m)
  for i = low + bit, 2 ^ d - 1, 2 * bit do set_entry(i, address) end
  splits = splits + 1
  return n, kept, m, moved, bit
end

for at = 1, #items, 20 do
  local P = placement(items, at + 4)
  local n = entry(P % 2 ^ d)
  local key, off = block_at(n)
  local b = call('GETRANGE', key, int(off), int(off + SIZE - 1))
  if not holds(b, sub(items, at + 4, at + 10)) then
    local t = first_free(b)
    while not t do
      local n0, b0, n1, b1, bit = split(n, b, P % 2 ^ byte(b, SIZE))
      if floor(P / bit) % 2 == 1 then n, b = n1, b1 else n, b = n0, b0 end
      key, off = block_at(n)
      t = first_free(b)
    end
    call('SETRANGE', key, int(off + t), sub(items, at + 4, at + 19))
    new = new + 1
  end
end
if copying > 0 then copy_next() end
if d ~= d0 or nb ~= nb0 or copying ~= copying0 then
  call('SET', 'm', int(d) .. ' ' .. int(nb) .. ' ' .. int(copying))
end
return {new, full, splits, doublings, floor(double_us), 2 ^ d, nb}
'''
LAYOUTS['directory-paged'] = LAYOUTS['directory-8'] = LAYOUTS['directory-8-paged'] = LAYOUTS['directory']
# Directory layouts: (slots a block, directory entries a directory string; 0 for one string).
DIRECTORY = {'directory': (16, 0), 'directory-paged': (16, 1 << 16), 'directory-8': (8, 0),
             'directory-8-paged': (8, 1 << 16)}

# Tagged buckets: a string per bucket, as `buckets`, laid out as a header of 2 bytes (C, the bucket's slots), C
# one-byte tags (the last byte of the record's field, 1 for 0; 0 is a free slot), then C records of 16 bytes. Slot
# i's tag is byte i of the tags; slots are filled in order, so the first 0 tag is the first free slot. A claim
# reads the header and the tags (GETRANGE of ARGV[3] bytes from the start, a second GETRANGE for the rest when the
# bucket's C is larger), looks for the id's tag in them (plain find), reads the 7-byte field of each record whose
# tag matches (GETRANGE), and writes a new id's tag and record into the first free slot. A full bucket is written
# again (SET) with the slots its allocation holds and at least 1 in 16 more, as claims.lua's room() does.
# ARGV[4] '1' (tagged-one): the records from the end of the string backward (slot i at 2 + C + 16 (C - 1 - i)), so
# that the bytes between the first free tag and its record are all free: one SETRANGE writes tag, zeros and record.
LAYOUTS['tagged'] = COMMON + r"""
local char, rep, floor, format = string.char, string.rep, math.floor, string.format
local function int(n) return format('%d', n) end
local WINDOW_END, ONE = int(tonumber(ARGV[3]) - 1), ARGV[4] == '1'
local WINDOW = tonumber(ARGV[3])
local SLOT = REC + 1
-- The slots of a bucket written again with n records and one more: at least n + 1 + n / 16, and as many as the
-- string's allocation holds (jemalloc's size classes, with the string's header and terminator).
local function capacity(n)
  local len = 2 + SLOT * (n + 1 + floor(n / 16))
  local hdr = len < 250 and 4 or 6
  local need = len + hdr
  local size
  if need <= 128 then
    size = need + (16 - need % 16) % 16
  else
    local step = 32
    while step * 8 < need do step = step * 2 end
    size = need + (step - need % step) % step
  end
  return floor((size - hdr - 2) / SLOT)
end
local zeros = {}
local function zero(n)
  local z = zeros[n]
  if not z then
    z = rep('\0', n)
    zeros[n] = z
  end
  return z
end
local function whole(c, tags, tag, recs, rec)
  -- The bucket of c slots with `tags` and `recs` (in the layout's order), then the new tag and record.
  local n = #tags + 1
  if ONE then
    return char(floor(c / 256), c % 256) .. tags .. tag .. zero(c - n) .. zero(REC * (c - n)) .. rec .. recs
  end
  return char(floor(c / 256), c % 256) .. tags .. tag .. zero(c - n) .. recs .. rec .. zero(REC * (c - n))
end
for at = 1, #items, 20 do
  local key = 'b' .. int(place(at) % count)
  local t = byte(items, at + 10)
  local tag = t == 0 and '\1' or char(t)
  local w = call('GETRANGE', key, '0', WINDOW_END)
  if w == '' then
    call('SET', key, whole(capacity(0), '', tag, '', sub(items, at + 4, at + 19)))
    new = new + 1
  else
    local h1, h2 = byte(w, 1, 2)
    local c = h1 * 256 + h2
    if c + 2 > #w then w = w .. call('GETRANGE', key, int(#w), int(c + 1)) end
    local f = find(w, '\0', 3, true)
    if f and f > c + 2 then f = nil end
    local stop = f or c + 3
    local field = sub(items, at + 4, at + 10)
    local p = find(w, tag, 3, true)
    local found = false
    while p and p < stop do
      local off = ONE and 2 + c + REC * (c + 2 - p) or 2 + c + REC * (p - 3)
      if call('GETRANGE', key, int(off), int(off + 6)) == field then
        found = true
        break
      end
      p = find(w, tag, p + 1, true)
    end
    if not found then
      local rec = sub(items, at + 4, at + 19)
      if f then
        if ONE then
          call('SETRANGE', key, int(f - 1), tag .. zero(2 + c + REC * (c + 2 - f) - f) .. rec)
        else
          call('SETRANGE', key, int(f - 1), tag)
          call('SETRANGE', key, int(2 + c + REC * (f - 3)), rec)
        end
      else
        call('SET', key, whole(capacity(c), sub(w, 3, c + 2), tag, call('GETRANGE', key, int(2 + c), '-1'), rec))
      end
      new = new + 1
    end
  end
end
return {new, full}
"""
LAYOUTS['tagged-one'] = LAYOUTS['tagged']
TAGGED = {'tagged': '0', 'tagged-one': '1'}


def tag_capacity(n):
    """The tagged script's capacity(n): slots of a bucket written again with n records and one more."""
    length = 2 + 17 * (n + 1 + n // 16)
    hdr = 4 if length < 250 else 6
    need = length + hdr
    if need <= 128:
        size = need + (16 - need % 16) % 16
    else:
        step = 32
        while step * 8 < need:
            step *= 2
        size = need + (step - need % step) % step
    return (size - hdr - 2) // 17


def tag_window(claims):
    """Bytes a tagged claim reads first: the header and the tags of a bucket written again at 1.25 x CLAIMS."""
    return 2 + tag_capacity(claims * 5 // 4)


# Block layouts: (block bytes, slots a block) for sizing their strings.
BLOCKS = {'blocks': (128, 8), 'two-blocks': (256, 16)}
# A string's bytes: 1 MiB less room for its header, so that jemalloc gives it 1 MiB and not its next size
# class (1.25 MiB).
STRING_BYTES = (1 << 20) - 64
LOAD = 0.8

REWRITE = r'''
local call = redis.call
local byte, sub, concat, rep = string.byte, string.sub, table.concat, string.rep
local REC, SLOTS = 16, 16
local old = call('GET', KEYS[1]) or ''
local count = tonumber(ARGV[1])
local blocks, held = {}, {}
for i = 0, count - 1 do blocks[i] = {}; held[i] = 0 end
local moved = 0
for p = 1, #old, REC do
  local a, b, c, d, e, f, g = byte(old, p, p + 6)
  if a + b + c + d ~= 0 then
    local s1, s2 = ((a * 256 + b) * 256 + c) % count, (((d * 256 + e) * 256 + f) * 256 + g) % count
    local t = held[s1] <= held[s2] and s1 or s2
    if held[t] < SLOTS then
      held[t] = held[t] + 1
      blocks[t][held[t]] = sub(old, p, p + REC - 1)
      moved = moved + 1
    end
  end
end
local out = {}
for i = 0, count - 1 do out[#out + 1] = concat(blocks[i]) .. rep('\0', REC * (SLOTS - held[i])) end
call('SET', KEYS[1], concat(out))
return moved
'''


def env(name, default):
    return os.environ.get(name, default)


def number(name, text, least=1):
    """A whole number, with k or M (1000, 1000000) allowed at its end; at least `least`."""
    text = text.strip()
    scale = {'k': 1000, 'M': 1000000}.get(text[-1:], 1)
    try:
        value = int(float(text[:-1] if scale > 1 else text) * scale)
    except ValueError:
        sys.exit('%s: not a number: %r (say 1000000, 1000k or 1M)' % (name, text))
    if value < least:
        sys.exit('%s: at least %d, not %r' % (name, least, text))
    return value


def count(name, default):
    return number(name, env(name, default))


def fills():
    return [number('FILLS', text, least=0) for text in env('FILLS', '0 10M 33M').split()]


@contextmanager
def server(counting=False):
    """A redis-server of its own (scripts.py's: a free port, nothing persisted, stopped by its PID); under callgrind,
    not counting until told, when `counting`."""
    running = Server(counting)
    try:
        running.conn = running.connect()
        yield running
    finally:
        running.stop()


def info(conn, section):
    return dict(line.split(':', 1) for line in conn.call('INFO', section).decode().splitlines() if ':' in line)


def cpu_seconds(conn):
    """The server's CPU time as it counts it, to the microsecond (/proc counts in ticks of 10 ms)."""
    cpu = info(conn, 'cpu')
    return float(cpu['used_cpu_user']) + float(cpu['used_cpu_sys'])


def grind(running, measure, warm=None):
    """What `measure` returns, and callgrind's totals (event -> count) over it: the server counts only meanwhile.
    `warm` runs first, instrumented (so that the simulated caches hold what it touched) but not counted."""
    pid = str(running.process.pid)
    control('-i', 'on', pid)
    if warm:
        warm()
    control('-z', pid)
    result = measure()
    control('-i', 'off', pid)
    control('-d', pid)
    deadline = time.monotonic() + 120
    while True:
        totals = {}
        for name in os.listdir(running.workdir):
            if name.startswith('callgrind.out'):
                events = None
                with open(os.path.join(running.workdir, name)) as dump:
                    for line in dump:
                        if line.startswith('events:'):
                            events = line.split()[1:]
                        elif line.startswith('totals:') and events:
                            for event, value in zip(events, line.split()[1:]):
                                totals[event] = totals.get(event, 0) + int(value)
        if totals or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    if not totals:
        raise RuntimeError('callgrind wrote no totals in ' + running.workdir)
    return result, totals


def misses(totals, ids):
    """Instructions, D1 and LL data misses (reads and writes) per new id; '-' for the misses without --cache-sim."""
    ir = '{:,.0f}'.format(totals['Ir'] / ids)
    if 'D1mr' not in totals:
        return ir, '-', '-'
    return (ir, '%.1f' % ((totals['D1mr'] + totals['D1mw']) / ids),
            '%.2f' % ((totals['DLmr'] + totals['DLmw']) / ids))


def claim(conn, sha, args, calls, per_call, in_flight=4, extra=None):
    """Sends calls of per_call new random ids; returns (new, full) summed over the replies: the ids answered new,
    and those of them that found no room (block layouts). The directory layouts' replies say more, gathered in
    `extra` (a dict): splits and doublings summed, the longest doubling (µs), the last directory size and blocks."""
    sent = answered = new = full = 0
    while answered < calls:
        while sent - answered < in_flight and sent < calls:
            conn.sock.sendall(encode(['EVALSHA', sha, '0', os.urandom(20 * per_call)] + args))
            sent += 1
        reply = conn.read()
        n, f = reply[:2]
        new, full, answered = new + n, full + f, answered + 1
        if extra is not None and len(reply) > 2:
            splits, doublings, double_us, entries, blocks = reply[2:]
            extra['splits'] = extra.get('splits', 0) + splits
            extra['doublings'] = extra.get('doublings', 0) + doublings
            if double_us > extra.get('double_us', -1):
                extra['double_us'], extra['double_to'] = double_us, entries
            extra['entries'], extra['blocks'] = entries, blocks
    return new, full


def slowest_ms(conn):
    """The longest call the slow log holds, in ms (0 when none took SLOWLOG_US or more)."""
    return max([entry[2] for entry in conn.call('SLOWLOG', 'GET', '-1')] or [0]) / 1000


# Filling without the scripts (FILL_BY=direct): the strings the claims would have left, made here and SET, many to a
# write. A bucket of n records has the length the script's growth gives n records (each bucket's count drawn as a
# Poisson variate of the row's mean), records of random bytes, the tags their field's last byte.

class Random16:
    """Random 16-byte records, taken from a pool of random bytes."""

    def __init__(self, size=1 << 24):
        self.pool, self.at = os.urandom(size) * 2, 0
        self.size = size

    def take(self, n):
        out = self.pool[self.at:self.at + 16 * n]
        self.at = (self.at + 16 * n + 16 * random.randrange(1, 64)) % self.size
        return out


def poisson(lam, rnd, tables={}):
    if lam >= 30:
        return max(0, round(rnd.gauss(lam, lam ** 0.5)))
    cdf = tables.get(lam)
    if cdf is None:
        cdf, term, total, k = [], math.exp(-lam), 0.0, 0
        while total < 1 - 1e-12 and k < 200:
            total += term
            cdf.append(total)
            k += 1
            term *= lam / k
        tables[lam] = cdf
    return bisect.bisect_left(cdf, rnd.random())


NONZERO = bytes([1]) + bytes(range(1, 256))


def send_all(conn, commands, chunk=500):
    """Sends the commands in writes of `chunk`, and reads their replies."""
    for at in range(0, len(commands), chunk):
        part = commands[at:at + chunk]
        conn.sock.sendall(b''.join(encode(c) for c in part))
        for _ in part:
            conn.read()


def fill_direct(conn, layout, args, fill, rnd):
    """Fills the row's table with `fill` claims as the layout's script would have left them; returns the claims."""
    recs = Random16()
    held, batch = 0, []
    if layout in BLOCKS:
        size, slots = BLOCKS[layout]
        places, per_string = int(args[0]), int(args[1])
        lam = fill / places
        for s in range(places // per_string):
            parts = []
            for _ in range(per_string):
                n = min(slots, poisson(lam, rnd))
                held += n
                parts.append(recs.take(n) + bytes(size - 16 * n))
            batch.append(['SET', 's%d' % s, b''.join(parts)])
            if len(batch) >= 16:
                send_all(conn, batch)
                batch = []
    else:
        buckets = int(args[0])
        lam = fill / buckets
        chains = {}
        for b in range(buckets):
            n = poisson(lam, rnd)
            if n == 0:
                continue
            held += n
            c = chains.get(n)
            if c is None:
                c = 0
                while c < n:
                    c = tag_capacity(c) if layout in TAGGED else c + 2 + c // 16
                chains[n] = c
            r = recs.take(n)
            if layout in TAGGED:
                tags = r[6::16]
                if TAGGED[layout] == '1':
                    value = bytes([c >> 8, c & 255]) + tags[::-1].translate(NONZERO) + bytes(17 * (c - n)) + r
                else:
                    value = bytes([c >> 8, c & 255]) + tags.translate(NONZERO) + bytes(c - n) + r + bytes(16 * (c - n))
            else:
                value = r + bytes(16 * (c - n))
            batch.append(['SET', 'b%d' % b, value])
            if len(batch) >= 2000:
                send_all(conn, batch)
                batch = []
    send_all(conn, batch)
    return held


def spec(name):
    """A layout named NAME or NAME@S (S: CLAIMS for this layout alone): (name, S)."""
    layout, _, claims = name.partition('@')
    return layout, (number('CLAIMS', claims) if claims else count('CLAIMS', '48'))


def tapjoy_row(counting, say):
    """Tapjoy's script as scripts.py's tapjoy harness sends it (TAPJOY_SECONDS of RATE ids in batches of BATCH)."""
    import scripts
    os.environ['SECONDS'] = env('TAPJOY_SECONDS', '8')
    with server(counting) as running:
        conn = running.conn
        sha = conn.call('SCRIPT', 'LOAD', open(scripts.TAPJOY).read()).decode()
        warm, measured, ids, new = scripts.tapjoy(conn, sha, random.Random(1), say)
        if not counting:
            conn.pipeline(warm)
        if counting:
            replies, totals = grind(running, lambda: conn.pipeline(measured), lambda: conn.pipeline(warm))
        else:
            cpu0 = cpu_seconds(conn)
            replies = conn.pipeline(measured)
            cpu1 = cpu_seconds(conn)
        answered = new(replies)
        if answered != ids:
            raise RuntimeError('tapjoy: %d of %d new ids answered new' % (answered, ids))
        memory, keys = int(info(conn, 'memory')['used_memory']), conn.call('DBSIZE')
        conn.close()
    seconds = int(os.environ['SECONDS'])
    held = ids * seconds // (seconds - 1)
    if counting:
        return '| tapjoy (batches of %s) | %s s | %s | %s | %s | %s |' % (
            env('BATCH', '1000'), os.environ['SECONDS'], *misses(totals, ids), '{:,}'.format(keys))
    return '| tapjoy (batches of %s) | %s s | %.2f | | | %.1f | %s |' % (
        env('BATCH', '1000'), os.environ['SECONDS'], (cpu1 - cpu0) * 1e6 / ids, memory / held, '{:,}'.format(keys))


def measure(layouts):
    rows = fills()
    per_call = count('CALL_IDS', '333')
    calls = max(1, count('IDS', '1M') // per_call)
    ids = calls * per_call
    counting = env('COUNT', 'cpu') == 'instructions'
    direct = env('FILL_BY', 'calls') == 'direct'
    rnd = random.Random(1)
    model = [line.split(':', 1)[1].strip() for line in open('/proc/cpuinfo') if line.startswith('model name')]
    server_version = subprocess.run([env('REDIS_SERVER', 'redis-server'), '--version'], capture_output=True,
                                    text=True).stdout.split(' sha')[0]
    print('%s, %d cores; %s; %d new ids a row in calls of %d; filled by %s%s' % (
        model[0] if model else 'CPU', os.cpu_count(), server_version, ids, per_call,
        'SET of the strings' if direct else 'calls of 1,000 ids',
        '; under callgrind %s' % env('CALLGRIND_ARGS', '') if counting else ''), flush=True)
    if counting:
        print('| layout | live claims | instructions/new id | D1 misses/new id | LL misses/new id | keys |')
        print('|---|---|---|---|---|---|')
    else:
        print('| layout | live claims | Redis CPU µs/new id | × empty | ids/s | used_memory bytes/claim held | keys '
              '| no room | slowest call ms (fill / measured) | splits/new id | directory entries | blocks '
              '| longest doubling ms (to entries) |')
        print('|---|---|---|---|---|---|---|---|---|---|---|---|---|')

    def say(line):
        print(line, file=sys.stderr, flush=True)

    for name in layouts:
        if name == 'tapjoy':
            print(tapjoy_row(counting, say), flush=True)
            continue
        layout, claims = spec(name)
        first = None
        for fill in rows:
            with server(counting) as running:
                conn = running.conn
                conn.call('CONFIG', 'SET', 'slowlog-log-slower-than', env('SLOWLOG_US', '2000'))
                conn.call('CONFIG', 'SET', 'slowlog-max-len', '100000')
                sha = conn.call('SCRIPT', 'LOAD', LAYOUTS[layout]).decode()
                if layout in DIRECTORY:
                    # Nothing to size: the first call makes the first block, and the table grows by splits.
                    slots, dir_page = DIRECTORY[layout]
                    args = ['0', str(slots), str(dir_page), str(STRING_BYTES)]
                elif layout in BLOCKS:
                    # Sized once for the row's claims at LOAD; the strings are made at their full length.
                    size, slots = BLOCKS[layout]
                    per_string = STRING_BYTES // size
                    places = -(-int((fill + ids) / slots / LOAD) // per_string) * per_string
                    if not (direct and fill):
                        for s in range(places // per_string):
                            conn.call('SETRANGE', 's%d' % s, str(per_string * size - 1), b'\0')
                    args = [str(places), str(per_string), str(size)]
                else:
                    # Buckets that hold CLAIMS records on average while the row's ids are measured.
                    args = [str(max(1, (fill + ids // 2) // claims))]
                    if layout in TAGGED:
                        args += [str(tag_window(claims)), TAGGED[layout]]
                held, filling, measuring = 0, {}, {}
                if fill and direct:
                    held = fill_direct(conn, layout, args, fill, rnd)
                elif fill:
                    new, full = claim(conn, sha, args, -(-fill // 1000), 1000, extra=filling)
                    held += new - full
                fill_ms = slowest_ms(conn)
                conn.call('SLOWLOG', 'RESET')
                cpu0, t0 = cpu_seconds(conn), time.monotonic()
                if counting:
                    # The simulated caches warmed by WARM_CALLS calls first, not counted.
                    warm_calls = count('WARM_CALLS', '30')
                    (new, full), totals = grind(running, lambda: claim(conn, sha, args, calls, per_call,
                                                                       extra=measuring),
                                                lambda: claim(conn, sha, args, warm_calls, per_call))
                else:
                    new, full = claim(conn, sha, args, calls, per_call, extra=measuring)
                cpu1, t1 = cpu_seconds(conn), time.monotonic()
                held += new - full
                memory = int(info(conn, 'memory')['used_memory'])
                keys = '{:,}'.format(conn.call('DBSIZE'))
                label = layout if layout in DIRECTORY or layout in BLOCKS else '%s, S = %d' % (layout, claims)
                if counting:
                    print('| %s | %s | %s | %s | %s | %s |' % (label, '{:,}'.format(fill), *misses(totals, new), keys),
                          flush=True)
                    conn.close()
                    continue
                if measuring:
                    longest = max((filling, measuring), key=lambda e: e.get('double_us', -1))
                    more = '%.3f | %s | %s | %.1f (%s) |' % (
                        measuring['splits'] / max(1, new), '{:,}'.format(measuring['entries']),
                        '{:,}'.format(measuring['blocks']), longest.get('double_us', 0) / 1000,
                        '{:,}'.format(longest.get('double_to', 0)))
                else:
                    more = ' | | | |'
                us = (cpu1 - cpu0) * 1e6 / max(1, new)
                first = us if first is None else first
                print('| %s | %s | %.2f | %s | %s | %.1f | %s | %d | %.1f / %.1f | %s' % (
                    label, '{:,}'.format(fill), us, '' if us is first else '%.2f' % (us / first),
                    '{:,.0f}'.format(ids / (t1 - t0)), memory / held, keys, full, fill_ms, slowest_ms(conn), more),
                    flush=True)
                conn.close()


def rewrite():
    rounds = count('ROUNDS', '50')
    with server() as running:
        conn = running.conn
        sha = conn.call('SCRIPT', 'LOAD', REWRITE).decode()
        rnd = random.Random(1)
        moved = cpu = 0.0
        for _ in range(rounds):
            blocks = []
            for _ in range(256):
                n = min(16, int(rnd.gauss(16 * 0.9, 1.5)))
                blocks.append(rnd.randbytes(16 * n) + bytes(16 * (16 - n)))
            conn.call('SET', 'segment', b''.join(blocks))
            before = cpu_seconds(conn)
            moved += conn.call('EVALSHA', sha, '1', 'segment', '320')
            cpu += cpu_seconds(conn) - before
        conn.close()
        print('rewrite of 256 blocks at 90 %% into 320: %.2f µs of Redis CPU per record moved (%d rounds)' % (
            cpu * 1e6 / moved, rounds))


def probing(blocks, slots, load, rnd):
    fill, passed = [0] * blocks, [False] * blocks
    for _ in range(int(blocks * slots * load)):
        i = rnd.randrange(blocks)
        while fill[i] >= slots:
            passed[i] = True
            i = (i + 1) % blocks
        fill[i] += 1
    reads = []
    for _ in range(50000):
        i, n = rnd.randrange(blocks), 1
        while passed[i]:
            i, n = (i + 1) % blocks, n + 1
        reads.append(n)
    return statistics.mean(reads), sum(r > 1 for r in reads) / len(reads)


def two_choices_fixed(blocks, slots, rnd):
    fill, n = [0] * blocks, 0
    while True:
        a, b = rnd.randrange(blocks), rnd.randrange(blocks)
        t = a if fill[a] <= fill[b] else b
        if fill[t] >= slots:
            return n / (blocks * slots)
        fill[t] += 1
        n += 1


def two_choices_linear_hashing(load, slots, rnd, base=64, ids=300000):
    level = split = 0
    blocks, overflow, spilled = [[] for _ in range(base)], [], 0

    def where(h):
        n = base << level
        return h % (2 * n) if h % n < split else h % n

    def put(rec):
        a, b = where(rec[0]), where(rec[1])
        t = a if len(blocks[a]) <= len(blocks[b]) else b
        if len(blocks[t]) < slots:
            blocks[t].append(rec)
            return True
        return False

    for held in range(1, ids + 1):
        rec = (rnd.getrandbits(40), rnd.getrandbits(40))
        if not put(rec):
            overflow.append(rec)
            spilled += 1
        while held > load * slots * len(blocks):
            old, blocks[split] = blocks[split], []
            blocks.append([])
            split += 1
            if split == base << level:
                level, split = level + 1, 0
            for r in old:
                put(r)
            waiting, overflow = overflow, []
            for r in waiting:
                if not put(r):
                    overflow.append(r)
    return spilled / ids


def simulate():
    rnd = random.Random(1)
    print('Linear probing over blocks of 16 slots (20,000 blocks): blocks a look-up of a new id reads')
    print('| load | blocks read, mean | look-ups reading more than one |')
    print('|---|---|---|')
    for load in (0.7, 0.8, 0.9):
        mean, more = probing(20000, 16, load, rnd)
        print('| %.2f | %.2f | %.1f %% |' % (load, mean, 100 * more))
    print()
    print('Two choices in a table of fixed size: the load when an id first finds both its blocks full (median of 20)')
    print('| blocks | slots a block | load |')
    print('|---|---|---|')
    for blocks, slots in ((256, 16), (1024, 16), (512, 8), (128, 32)):
        print('| %d | %d | %.3f |' % (blocks, slots, statistics.median(
            two_choices_fixed(blocks, slots, rnd) for _ in range(20))))
    print()
    print('Two choices under linear hashing (one block split each time the table passes the load): ids that find')
    print('both their blocks full')
    print('| load | 16 slots | 32 slots |')
    print('|---|---|---|')
    for load in (0.75, 0.8, 0.9):
        print('| %.2f | %.1f %% | %.1f %% |' % (load, 100 * two_choices_linear_hashing(load, 16, rnd),
                                                100 * two_choices_linear_hashing(load, 32, rnd)))


def main():
    # A kill must still reach the finally that stops the server.
    signal.signal(signal.SIGTERM, lambda *ignored: sys.exit(143))
    signal.signal(signal.SIGHUP, lambda *ignored: sys.exit(129))
    what = sys.argv[1] if len(sys.argv) > 1 else ''
    if what == 'measure':
        layouts = sys.argv[2:] or list(LAYOUTS)
        unknown = [name for name in layouts if name.partition('@')[0] not in LAYOUTS and name != 'tapjoy']
        if unknown:
            sys.exit('no layout %s; there are %s' % (', '.join(unknown), ', '.join(LAYOUTS)))
        measure(layouts)
    elif what == 'rewrite' and len(sys.argv) == 2:
        rewrite()
    elif what == 'simulate' and len(sys.argv) == 2:
        simulate()
    else:
        sys.exit(__doc__)


if __name__ == '__main__':
    main()
