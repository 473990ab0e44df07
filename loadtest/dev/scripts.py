#!/usr/bin/env python3
"""Sends the agent's claim scripts straight to a redis-server of its own, without the agent, and reports what
they cost the server per new id. The agent's own work and the HTTP hops add nothing, so a change to a script
shows alone. Name a second version of the script to compare the two.

Usage: loadtest/dev/scripts.py fingerprint|event-time|tapjoy [SCRIPT]

  fingerprint  The fingerprint tables' claim call: guard.lua, answers.lua, records.lua and claims.lua as one
               script, with the KEYS and ARGV of ClaimCalls.ClaimsCall for a table of the default 24-hour
               window on a standalone shard (2^10 base buckets). The table has BUCKETS buckets and its state
               (level, split pointer) says so. Calls of CALL_IDS items fill it with FILL records a bucket,
               then IDS new ids are claimed and measured. The claim script never splits a bucket: the agent
               does that with table.lua, and nothing here calls it. So the table keeps its shape while it is
               measured, and each bucket gains IDS / BUCKETS records meanwhile: a smaller IDS keeps the
               buckets nearer FILL.
  event-time   guard.lua, answers.lua and timed.lua: per second of event time, CALLS_PER_SECOND calls of
               CALL_IDS items into SLICES buckets, with the agent's cap (384 records) and SETTLE. The first
               second is not measured.
  tapjoy       loadtest's tapjoy.lua, as the load generator's --direct mode sends it: per second of event
               time, RATE ids in batches of BATCH, one call per bucket a batch touches (RATE / 100 buckets a
               second), 16-byte ids and 8-byte owners. The first second is not measured.

SCRIPT replaces the last part (claims.lua, timed.lua or tapjoy.lua); the parts before it stay the agent's.
The two versions run in alternating rounds on the same inputs, each round on a fresh server, so a drift of
the machine touches both alike. Both medians are printed, with their ratio.

Each round starts its own redis-server on a free port (never 6379), with nothing persisted, and stops it by
its PID however the round ends. Every measured id must be answered new, or the round fails.

COUNT=cpu reports the server's CPU time (utime + stime from /proc) per new id over the measured calls.
COUNT=instructions runs the server under valgrind's callgrind, counting only during the measured calls, and
reports the instructions it executes per new id. That count is the same from run to run whatever else the
machine does, so a change of a few percent shows where CPU time moves by tens of percent. It does not see
cache misses: a change that moves memory traffic must be checked by CPU time too. It needs valgrind. At the
defaults a fingerprint or event-time round takes about two minutes and a tapjoy round about fifteen; tapjoy
with SECONDS=8 gives the same figure within a percent in two.

Environment, with defaults:
  COUNT             cpu or instructions (cpu)
  CALLGRIND_ARGS    more options for callgrind with COUNT=instructions, e.g. '--cache-sim=yes --LL=8388608,16,64'
                    (counted, not reported here: layouts.py reports the misses) ()
  ROUNDS            rounds per version; the median is reported (3)
  REDIS_SERVER      the server binary (redis-server)
  fingerprint and event-time:
    CALL_IDS        items a call carries: a batch of 1,000 split over three shards (333)
    DISTINCT        1 sends the no-repeat flag as the agent computes it (1 here: no id comes twice in a
                    call); 0 always sends 0, the path of a call that holds a repeat (1)
  fingerprint:
    BUCKETS         buckets of the table, 1,024 to 67,108,864 (4096)
    FILL            records a bucket before the measure: where the agent splits (48)
    IDS             new ids measured, in whole calls (300000)
  event-time:
    SECONDS         seconds of event time (60)
    CALLS_PER_SECOND  calls a second: one shard's third of 33,334 ids (33)
    SLICES          buckets a second: one shard's third of 334 (111)
    SETTLE          records from which timed.lua writes a bucket whole (75)
  tapjoy:
    SECONDS         seconds of event time (60)
    RATE            ids a second (33334)
    BATCH           ids a batch (1000)

Python standard library only.
"""
import os
import random
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPTS = os.path.join(HERE, '..', '..', 'agent', 'src', 'main', 'resources', 'dev', 'dedup', 'agent', 'store',
                       'redis')
TAPJOY = os.path.join(HERE, '..', 'src', 'main', 'resources', 'tapjoy.lua')

# What the agent sends, with the default key prefix, a fixed window of 24 hours and one standalone shard.
WINDOW = 86400
BASE_BITS = 10  # FingerprintTables.BASE_BITS: a standalone shard holds every base bucket
ROUTE_BITS = 16
END_RANGE = 1 << 28
TABLE = b'f86400000'
STATE = b'dd:t:' + TABLE
TABLES = b'dd:tables'
HEAD = b'dd:b' + TABLE + b':'
CHANNEL = b'dd:released'
TOPOLOGY = b'dd:topology'
TOPOLOGY_RECORD = b'dedup-topology v1 deployment=scripts epoch=1 shard=0 of=1'
TIME_BUCKET_RECORDS = b'384'  # TimeBuckets.OVERFULL_RECORDS
NAMESPACE_TAG = 7
EPOCH_SECOND = 1700000000

PARTS = {
    'fingerprint': ['guard.lua', 'answers.lua', 'records.lua', 'claims.lua'],
    'event-time': ['guard.lua', 'answers.lua', 'timed.lua'],
    'tapjoy': [TAPJOY],
}


def env(name, default):
    value = os.environ.get(name, str(default))
    try:
        return int(value)
    except ValueError:
        sys.exit('%s: not a whole number: %r' % (name, value))


def encode(args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += [b'$%d\r\n' % len(a), a, b'\r\n']
    return b''.join(out)


class Connection:
    """A RESP connection that keeps a few calls in flight and reads their replies in order."""

    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port))
        self.buf = b''

    def _line(self):
        while b'\r\n' not in self.buf:
            self._more()
        line, self.buf = self.buf.split(b'\r\n', 1)
        return line

    def _more(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnectionError('redis-server closed the connection')
        self.buf += data

    def read(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b'-':
            raise RuntimeError(rest.decode(errors='replace'))
        if kind == b':':
            return int(rest)
        if kind == b'$':
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self._more()
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if kind == b'*':
            n = int(rest)
            return None if n < 0 else [self.read() for _ in range(n)]
        return rest

    def call(self, *args):
        self.sock.sendall(encode(list(args)))
        return self.read()

    def pipeline(self, calls, depth=4):
        replies, sent = [], 0
        while len(replies) < len(calls):
            while sent < len(calls) and sent - len(replies) < depth:
                self.sock.sendall(encode(calls[sent]))
                sent += 1
            replies.append(self.read())
        return replies

    def close(self):
        self.sock.close()


def free_port():
    while True:
        with socket.socket() as s:
            s.bind(('127.0.0.1', 0))
            port = s.getsockname()[1]
        if port != 6379:
            return port


class Server:
    """A redis-server of this round's own, nothing persisted; under callgrind when counting instructions."""

    def __init__(self, counting):
        self.counting = counting
        self.workdir = tempfile.mkdtemp(prefix='dedup-scripts.')
        self.port = free_port()
        grind = (['valgrind', '--tool=callgrind', '--instr-atstart=no',
                 '--callgrind-out-file=' + os.path.join(self.workdir, 'callgrind.out.%p')]
                 + shlex.split(os.environ.get('CALLGRIND_ARGS', ''))) if counting else []
        self.log = open(os.path.join(self.workdir, 'server.log'), 'wb')
        try:
            # Under valgrind this PID is the server itself: valgrind runs it in its own process.
            self.process = subprocess.Popen(
                grind + [os.environ.get('REDIS_SERVER', 'redis-server'), '--port', str(self.port), '--bind',
                         '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', self.workdir],
                stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT)
        except OSError:
            self.log.close()
            shutil.rmtree(self.workdir, ignore_errors=True)
            raise

    def connect(self):
        deadline = time.monotonic() + (120 if self.counting else 10)
        while True:
            if self.process.poll() is not None:
                raise RuntimeError('redis-server exited (%d) before it answered:\n%s'
                                   % (self.process.returncode, self.log_tail()))
            try:
                conn = Connection(self.port)
                conn.call('PING')
                return conn
            except (OSError, RuntimeError):
                if time.monotonic() > deadline:
                    raise RuntimeError('redis-server did not answer on port %d:\n%s' % (self.port, self.log_tail()))
                time.sleep(0.05)

    def log_tail(self):
        self.log.flush()
        with open(os.path.join(self.workdir, 'server.log'), 'rb') as f:
            return f.read()[-2000:].decode(errors='replace')

    def cpu_seconds(self):
        fields = open('/proc/%d/stat' % self.process.pid).read().rsplit(')', 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')

    def instructions(self, measure):
        """What `measure` returns, and the instructions the server executed while it ran."""
        pid = str(self.process.pid)
        control('-i', 'on', pid)
        result = measure()
        control('-i', 'off', pid)
        control('-d', pid)
        deadline = time.monotonic() + 60
        while True:
            totals = []
            for name in os.listdir(self.workdir):
                if name.startswith('callgrind.out'):
                    with open(os.path.join(self.workdir, name)) as dump:
                        totals += [int(line.split()[1]) for line in dump if line.startswith('totals:')]
            if totals or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if not totals:
            raise RuntimeError('callgrind wrote no totals in ' + self.workdir)
        return result, sum(totals)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)  # callgrind writes its last dump on the way out
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def control(*args):
    """Runs callgrind_control, quietly unless it fails."""
    done = subprocess.run(['callgrind_control', *args], stdin=subprocess.DEVNULL, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError('callgrind_control %s: %s%s' % (' '.join(args), done.stdout, done.stderr))


def distinct(items, size, field_at):
    """ShardCalls.distinct: whether no key index and field come twice among the items."""
    seen = {items[at:at + 2] + items[at + field_at:at + field_at + 7] for at in range(0, len(items), size)}
    return len(seen) == len(items) // size


def distinct_flag(items, size, field_at):
    return b'1' if env('DISTINCT', 1) and distinct(items, size, field_at) else b'0'


# The fingerprint tables (ClaimCalls.java, FingerprintRecord.java, TableState.java, claims.lua).

def table_shape(buckets):
    """The level and split pointer of a table of `buckets` buckets."""
    base = 1 << BASE_BITS
    if buckets < base or buckets > base << ROUTE_BITS:
        sys.exit('BUCKETS: %d, not between %d and %d' % (buckets, base, base << ROUTE_BITS))
    level = (buckets >> BASE_BITS).bit_length() - 1
    return level, buckets - (base << level)


def bucket_of(route, level, split):
    """TableState.bucket: the bucket of an id whose route's low half is `route`."""
    low = 1 << (BASE_BITS + level)
    a = route & (low - 1)
    return route & (2 * low - 1) if a < split else a


def route_into(rnd, bucket, level, split):
    """A random route whose id goes to `bucket`."""
    low = 1 << (BASE_BITS + level)
    mask = 2 * low - 1 if bucket < split or bucket >= low else low - 1
    return (rnd.getrandbits(32) & ~mask) | bucket


def fingerprint_entry(rnd, route, now):
    """An id of a new owner: its route, its 7-byte field and its record's owner-and-end (7 bytes)."""
    value = rnd.randrange(1, 1 << 28) << 28 | (now + WINDOW) % END_RANGE
    return route, rnd.randbytes(7), value.to_bytes(7, 'big')


def fingerprint_call(sha, mode, view, entries, shape, now):
    """The claim call ClaimCalls.ClaimsCall describes, for `entries`: buckets in order of first use."""
    index, keys, numbers, items = {}, [], [], []
    for route, field, value in entries:
        b = bucket_of(route, *shape)
        k = index.get(b)
        if k is None:
            k = index[b] = len(keys) + 1
            keys.append(HEAD + struct.pack('>I', b))
            numbers.append(struct.pack('>I', b))
        items.append(struct.pack('>HH', k, route & 0xffff) + field
                     + struct.pack('>H', (route >> BASE_BITS) & 0xffff) + value)
    items = b''.join(items)
    return ['EVALSHA', sha, str(len(keys) + 3), *keys, STATE, TABLES, TOPOLOGY,
            mode, items, str(now), view, b''.join(numbers), b'0', CHANNEL, str(BASE_BITS), TABLE, b'0', HEAD,
            distinct_flag(items, 20, 4), TOPOLOGY_RECORD]


def table_state(conn):
    return tuple(int(v or 0) for v in conn.call('HMGET', STATE, 'level', 'split', 'claims'))


def fingerprint(conn, sha, rnd, say):
    buckets, fill, per_call = env('BUCKETS', 4096), env('FILL', 48), env('CALL_IDS', 333)
    ids = env('IDS', 300000) // per_call * per_call
    shape = table_shape(buckets)
    view = b'%d %d' % shape
    now = int(time.time()) % END_RANGE
    say('fingerprint: %d buckets (level %d, split %d) of %d records, %d new ids in calls of %d: %.1f more records'
        ' a bucket by the end' % (buckets, shape[0], shape[1], fill, ids, per_call, ids / buckets))
    # The state the agent's splits would have left: what claims.lua addresses buckets by.
    conn.call('HSET', STATE, 'level', str(shape[0]), 'split', str(shape[1]))
    order = [b for b in range(buckets) for _ in range(fill)]
    rnd.shuffle(order)
    filling = [[fingerprint_entry(rnd, route_into(rnd, b, *shape), now) for b in order[at:at + per_call]]
               for at in range(0, len(order), per_call)]
    for reply in conn.pipeline([fingerprint_call(sha, b'c', view, e, shape, now) for e in filling]):
        if len(reply) != 4 or reply[0].count(b'\0') != len(reply[0]):
            raise RuntimeError('filling the table: a call answered %r' % reply[:4])
    if table_state(conn) != (shape[0], shape[1], buckets * fill):
        raise RuntimeError('after filling, the table state is %s' % (table_state(conn),))
    if filling:
        # Looked up under a view that is not the table's, so that claims.lua places each id by its route:
        # every id is found only if this harness places ids as the script does.
        found = conn.call(*fingerprint_call(sha, b'k', b'-', filling[0], shape, now))[0]
        if found != b'\1' * len(filling[0]):
            raise RuntimeError('the filled ids are not where their routes place them')

    measured = [fingerprint_call(sha, b'c', view, [fingerprint_entry(rnd, rnd.getrandbits(32), now)
                                                   for _ in range(per_call)], shape, now)
                for _ in range(ids // per_call)]

    def new(replies):
        if any(len(r) != 4 for r in replies):
            raise RuntimeError('a claim call answered %r' % next(r for r in replies if len(r) != 4))
        state = table_state(conn)
        if state != (shape[0], shape[1], buckets * fill + ids):
            raise RuntimeError('after the measure, the table state is %s' % (state,))
        return sum(r[0].count(b'\0') for r in replies)

    return measured[:0], measured, ids, new


# Event time (TimeBuckets.java, timed.lua).

def event_time(conn, sha, rnd, say):
    seconds, per_call = env('SECONDS', 60), env('CALL_IDS', 333)
    cps, slices, settle = env('CALLS_PER_SECOND', 33), env('SLICES', 111), env('SETTLE', 75)
    say('event-time: %d seconds of %d calls of %d ids into %d buckets a second' % (seconds, cps, per_call, slices))
    calls = []
    for second in range(seconds):
        names = [b'dd{t' + struct.pack('>HIH', NAMESPACE_TAG, EPOCH_SECOND + second, s) + b'}' for s in range(slices)]
        for _ in range(cps):
            index, keys, items = {}, [], []
            for _ in range(per_call):
                s = rnd.randrange(slices)
                if s not in index:
                    index[s] = len(keys) + 1
                    keys.append(names[s])
                owner = rnd.randrange(1, 1 << 32)  # never 0, the tombstone
                items.append(struct.pack('>H', index[s]) + rnd.randbytes(7) + struct.pack('>I', owner))
            items = b''.join(items)
            ttls = struct.pack('>i', WINDOW) * len(keys)
            calls.append(['EVALSHA', sha, str(len(keys) + 1), *keys, TOPOLOGY,
                          b'c', items, TIME_BUCKET_RECORDS, CHANNEL, ttls, distinct_flag(items, 13, 2), str(settle),
                          TOPOLOGY_RECORD])
    measured = calls[cps:]
    return calls[:cps], measured, per_call * len(measured), lambda replies: sum(r[0].count(b'\0') for r in replies)


# Tapjoy's design (loadtest's TapjoyTransport and TapjoyBuckets, tapjoy.lua).

def tapjoy(conn, sha, rnd, say):
    seconds, rate, batch = env('SECONDS', 60), env('RATE', 33334), env('BATCH', 1000)
    slices = (rate + 99) // 100
    say('tapjoy: %d seconds of %d ids in batches of %d into %d buckets a second' % (seconds, rate, batch, slices))
    calls, per_second = [], 0
    for second in range(seconds):
        for start in range(0, rate, batch):
            groups = {}
            for _ in range(min(batch, rate - start)):
                groups.setdefault(rnd.randrange(slices), []).extend([rnd.randbytes(16), rnd.randbytes(8)])
            for s in sorted(groups):
                calls.append(['EVALSHA', sha, '1', b'%010d:%03d' % (EPOCH_SECOND + second, s), str(WINDOW),
                              *groups[s]])
        if second == 0:
            per_second = len(calls)
    measured = calls[per_second:]
    ids = sum((len(c) - 5) // 2 for c in measured)
    return calls[:per_second], measured, ids, lambda replies: ids - sum(len(r) for r in replies)


HARNESSES = {'fingerprint': fingerprint, 'event-time': event_time, 'tapjoy': tapjoy}


def one_round(kind, body, seed, counting, say):
    """One fresh server: what the measured calls cost it per new id."""
    server = Server(counting)
    try:
        conn = server.connect()
        conn.call('SET', TOPOLOGY, TOPOLOGY_RECORD)
        sha = conn.call('SCRIPT', 'LOAD', body).decode()
        warm, measured, ids, new = HARNESSES[kind](conn, sha, random.Random(seed), say)
        conn.pipeline(warm)
        if counting:
            replies, spent = server.instructions(lambda: conn.pipeline(measured))
        else:
            before = server.cpu_seconds()
            replies = conn.pipeline(measured)
            spent = (server.cpu_seconds() - before) * 1e6
        answered = new(replies)
        if answered != ids:
            raise RuntimeError('%d of %d new ids answered new' % (answered, ids))
        conn.close()
        return spent / ids
    finally:
        server.stop()


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] not in HARNESSES:
        sys.exit(__doc__)
    kind = sys.argv[1]
    count = os.environ.get('COUNT', 'cpu')
    if count not in ('cpu', 'instructions'):
        sys.exit('COUNT: cpu or instructions, not %r' % count)
    counting = count == 'instructions'
    if counting and not (shutil.which('valgrind') and shutil.which('callgrind_control')):
        sys.exit('COUNT=instructions needs valgrind (apt-get install valgrind)')
    parts = [p if os.sep in p else os.path.join(SCRIPTS, p) for p in PARTS[kind]]
    versions = [parts] + ([parts[:-1] + [sys.argv[2]]] if len(sys.argv) == 3 else [])
    bodies = []
    for files in versions:
        try:
            bodies.append((os.path.basename(files[-1]), b''.join(open(f, 'rb').read() for f in files)))
        except OSError as e:
            sys.exit(str(e))
    rounds = env('ROUNDS', 3)
    said = set()

    def say(line):
        if line not in said:
            said.add(line)
            print(line, file=sys.stderr, flush=True)

    # A SIGTERM or SIGHUP ends the run through the `finally` that stops the server.
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, frame: sys.exit(128 + signum))
    unit, form = ('instructions', '%.0f') if counting else ('Redis CPU µs', '%.3f')
    figures = [[] for _ in bodies]
    for r in range(rounds):
        for v, (name, body) in enumerate(bodies):
            figures[v].append(one_round(kind, body, r + 1, counting, say))
            say(('round %d, %s: ' + form) % (r + 1, name, figures[v][-1]))
    for v, (name, _) in enumerate(bodies):
        line = '%s %s: %s per new id %s, median %s' % (kind, name, unit, ' / '.join(form % f for f in figures[v]),
                                                        form % median(figures[v]))
        if v:
            line += ' (%.3fx %s)' % (median(figures[v]) / median(figures[0]), bodies[0][0])
        print(line)


if __name__ == '__main__':
    main()
