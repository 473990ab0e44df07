#!/usr/bin/env python3
"""The agent's claim scripts sent straight to one local redis-server, without the agent: Redis CPU per new id
(the server's utime + stime from /proc over the measured calls), to compare two versions of a script or of a
layout on the shard alone, where the agent's own work and the HTTP hops add no noise.

  fingerprint  guard.lua + levels.lua + answers.lua + dedup.lua: calls of CALL_IDS items into BUCKETS buckets
               (one shard's share of 16,384 over three, the agent's default before 65,536: the harness figures of
               docs/performance.md were measured so), after FILL claims a bucket; ARGV[9] is
               LAYOUT ('0' layout v1, '3' layout v2: marked buckets).
  tapjoy       loadtest's tapjoy.lua (Tapjoy's design, as bench-matrix.sh's other side runs it): per second of
               event time, RATE ids in batches of BATCH, each batch one call per bucket it touches (the
               second's slice: RATE / 100 slices), ids 16 bytes and owners 8 as the load generator sends
               them; the first second is not measured.
  event-time   guard.lua + answers.lua + timed.lua: per second of event time, CALLS_PER_SECOND calls of CALL_IDS
               items into SLICES buckets (one shard's share of 334 a second at 33,334 ids a second), as the bar cell
               of bench-matrix.sh brings them; DISTINCT ('1': the agent found no repeat in a call) and
               SETTLE (records from which a bucket is written whole) as the agent sends them.

Standard library only. Starts its own redis-server (REDIS_SERVER, default redis-server) on a free port with
nothing persisted and hash-max-listpack-entries 512, stops it by its PID. Prints the median over ROUNDS.

With COUNT=instructions the server runs under valgrind's callgrind, instrumented over the measured calls
only, and the figure is the instructions it executed per new id instead of its CPU time: the same for the
same script, inputs and server binary whatever else the machine does (two runs of one version agree to a
few instructions), so a change of a few percent shows on a shared machine where CPU time moves by tens of
percent. It does not see cache misses, which the listpack search and the key lookups are full of: a
change that moves memory traffic must be checked by CPU time too. Needs valgrind; about 10 s a round at
IDS=30000.
Usage: loadtest/bench-scripts.py fingerprint|event-time|tapjoy [SCRIPT]  (SCRIPT: another version of the script)
Environment: COUNT (cpu or instructions), ROUNDS (3), FILL (40), IDS (300000), CALL_IDS (333), BUCKETS (5461),
LAYOUT (3), SECONDS (60), CALLS_PER_SECOND (33), SLICES (111), DISTINCT (1), SETTLE (75), RATE (33334), BATCH
(1000).
"""
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'agent', 'src', 'main', 'resources',
                       'dev', 'dedup', 'agent', 'store', 'redis')
TAPJOY = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'src', 'main', 'resources', 'tapjoy.lua')


def env(name, default):
    return int(os.environ.get(name, default))


def encode(args):
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a.encode() if isinstance(a, str) else a
        out += [b'$%d\r\n' % len(a), a, b'\r\n']
    return b''.join(out)


class Connection:
    """A RESP connection that pipelines a few calls and reads their replies."""

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
            raise RuntimeError(rest.decode())
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


def cpu_seconds(pid):
    fields = open('/proc/%d/stat' % pid).read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def script(files):
    body = b''.join(open(os.path.join(SCRIPTS, f) if os.sep not in f else f, 'rb').read() for f in files)
    return body


def fingerprint_calls(rnd, names, calls, per_call, now, layout):
    out = []
    for _ in range(calls):
        index, keys, items = {}, [], []
        for _ in range(per_call):
            b = rnd.randrange(len(names))
            if b not in index:
                index[b] = len(keys) + 1
                keys.append(names[b])
            value = (1 + rnd.randrange(1 << 28)) * (1 << 20) + (now + 86400) % (1 << 20)
            items.append(struct.pack('>H', index[b]) + rnd.randbytes(7) + struct.pack('>HI', value >> 32, value & 0xffffffff))
        out.append((keys, ['c', b''.join(items), '384', 'chan', str(now), str(90000 * 1000), '8', '0', str(layout)]))
    return out


def event_time_calls(rnd, seconds, per_call, calls_per_second, slices, distinct, settle):
    out = []
    for second in range(seconds):
        names = [b'dd{t' + struct.pack('>IHH', second, s, 7) + b'}' for s in range(slices)]
        for _ in range(calls_per_second):
            index, keys, items = {}, [], []
            for _ in range(per_call):
                s = rnd.randrange(slices)
                if s not in index:
                    index[s] = len(keys) + 1
                    keys.append(names[s])
                items.append(struct.pack('>H', index[s]) + rnd.randbytes(7) + struct.pack('>I', 1 + rnd.randrange(1 << 28)))
            ttls = b''.join(struct.pack('>i', 86400) for _ in keys)
            out.append((keys, ['c', b''.join(items), '384', 'chan', ttls, str(distinct), str(settle)]))
    return out


def instructions(pid, workdir, measure):
    """Instructions the callgrind-run server `pid` executes while `measure` runs."""
    control = ['callgrind_control']
    subprocess.run(control + ['-i', 'on', str(pid)], check=True, stdout=subprocess.DEVNULL)
    result = measure()
    subprocess.run(control + ['-i', 'off', str(pid)], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(control + ['-d', str(pid)], check=True, stdout=subprocess.DEVNULL)
    total = 0
    for name in os.listdir(workdir):
        if name.startswith('callgrind.out'):
            with open(os.path.join(workdir, name)) as dump:
                total += sum(int(line.split()[1]) for line in dump if line.startswith('totals:'))
    return result, total


def tapjoy_calls(rnd, seconds, rate, batch):
    """Per second, per batch, one call per slice the batch touches: (key, [ttl, id, owner, id, owner, ...])."""
    slices = (rate + 99) // 100
    out = []
    for second in range(seconds):
        for start in range(0, rate, batch):
            groups = {}
            for _ in range(min(batch, rate - start)):
                groups.setdefault(rnd.randrange(slices), []).extend([rnd.randbytes(16), rnd.randbytes(8)])
            for s, args in groups.items():
                out.append((b'%010d:%03d' % (1700000000 + second, s), args))
    return out


def one_round(kind, files, seed):
    port = free_port()
    workdir = tempfile.mkdtemp(prefix='bench-scripts.')
    counting = os.environ.get('COUNT', 'cpu') == 'instructions'
    grind = ['valgrind', '--tool=callgrind', '--instr-atstart=no',
             '--callgrind-out-file=' + os.path.join(workdir, 'callgrind.out.%p')] if counting else []
    server = subprocess.Popen(grind + [os.environ.get('REDIS_SERVER', 'redis-server'), '--port', str(port), '--bind',
                                       '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', workdir,
                                       '--hash-max-listpack-entries', '512'],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600 if counting else 100):
            try:
                conn = Connection(port)
                conn.call('PING')
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise RuntimeError('redis-server did not start on port %d' % port)
        conn.call('SET', 'topo', 'T1')
        sha = conn.call('SCRIPT', 'LOAD', script(files)).decode()
        rnd = random.Random(seed)
        per_call = env('CALL_IDS', 333)

        def evalsha(call):
            keys, args = call
            return ['EVALSHA', sha, str(len(keys) + 1), *keys, 'topo', *args, 'T1']

        if kind == 'tapjoy':
            calls = [['EVALSHA', sha, '1', key, '86400', *args]
                     for key, args in tapjoy_calls(rnd, env('SECONDS', 60), env('RATE', 33334), env('BATCH', 1000))]
            per_second = len(calls) // env('SECONDS', 60)
            conn.pipeline(calls[:per_second])  # about the first second, not measured
            measured = calls[per_second:]
        elif kind == 'fingerprint':
            names = [b'dd{' + struct.pack('>I', b) + b'}' for b in range(env('BUCKETS', 5461))]
            now = int(time.time())
            layout = env('LAYOUT', 3)
            fill = fingerprint_calls(rnd, names, env('FILL', 40) * len(names) // per_call, per_call, now, layout)
            for at in range(0, len(fill), 200):
                conn.pipeline([evalsha(c) for c in fill[at:at + 200]])
            measured = [evalsha(c) for c in fingerprint_calls(rnd, names, env('IDS', 300000) // per_call,
                                                                per_call, now, layout)]
        else:
            cps = env('CALLS_PER_SECOND', 33)
            calls = [evalsha(c) for c in event_time_calls(rnd, env('SECONDS', 60), per_call, cps,
                                                           env('SLICES', 111), env('DISTINCT', 1),
                                                           env('SETTLE', 75))]
            conn.pipeline(calls[:cps])  # the first second, not measured
            measured = calls[cps:]
        if counting:
            replies, spent = instructions(server.pid, workdir, lambda: conn.pipeline(measured))
            spent /= 1e6  # reported per id below as spent * 1e6 / ids: instructions per id
        else:
            before = cpu_seconds(server.pid)
            replies = conn.pipeline(measured)
            spent = cpu_seconds(server.pid) - before
        if kind == 'tapjoy':
            ids = sum((len(c) - 5) // 2 for c in measured)
            new = ids - sum(len(r) for r in replies)
        else:
            ids = per_call * len(measured)
            new = sum(r[0].count(b'\0') for r in replies)
        if new != ids:
            raise RuntimeError('%d of %d fresh ids answered new' % (new, ids))
        return spent * 1e6 / ids
    finally:
        server.terminate()  # callgrind writes its last dump on the way out
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ('fingerprint', 'event-time', 'tapjoy'):
        sys.exit(__doc__)
    kind = sys.argv[1]
    last = sys.argv[2] if len(sys.argv) > 2 else {'fingerprint': 'dedup.lua', 'event-time': 'timed.lua',
                                                  'tapjoy': TAPJOY}[kind]
    files = {'fingerprint': ['guard.lua', 'levels.lua', 'answers.lua', last],
             'event-time': ['guard.lua', 'answers.lua', last], 'tapjoy': [last]}[kind]
    rounds = sorted(one_round(kind, files, seed) for seed in range(1, env('ROUNDS', 3) + 1))
    unit = 'instructions' if os.environ.get('COUNT', 'cpu') == 'instructions' else 'Redis CPU µs'
    print('%s %s: %s per new id %s, median %.3f' % (kind, os.path.basename(last), unit,
                                                             ' / '.join('%.3f' % r for r in rounds),
                                                             rounds[len(rounds) // 2]))


if __name__ == '__main__':
    main()
