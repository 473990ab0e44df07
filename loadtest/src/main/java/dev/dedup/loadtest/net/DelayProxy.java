package dev.dedup.loadtest.net;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy that delays: every chunk read from one side is written to the other {@code delay} ± {@code jitter}
 * (uniform) after it was read, never ahead of the chunk before it, as a link with that one-way latency would
 * carry it ({@code tc qdisc netem delay}, for a kernel without netem). Commands pipelined on a connection stay
 * pipelined: a chunk waits for its own time, not for the answer to the one before.
 *
 * <p>Each direction of each connection is a reader thread that stamps chunks and a writer thread that sends them
 * when due; the writer waits with {@link LockSupport#parkNanos}, which keeps sub-millisecond delays
 * (JDK 17's {@code Thread.sleep} rounds any wait up to a whole millisecond), and parks for as much less as the
 * scheduler has lately woken it late, so that the delay's mean is the one set.
 *
 * <p>As a program: {@code java -cp dedup-loadtest.jar dev.dedup.loadtest.net.DelayProxy [--round-trip D]
 * [--jitter J] LISTEN=TARGET...}, each {@code host:port} (a LISTEN port of 0: a free one). It prints {@code
 * <listen host>:<port>=<target>} per proxy, then {@code ready}; a line {@code round-trip D J} on its standard input
 * changes the delay of every proxy (answered {@code ok}), and the end of its input stops it.
 */
public final class DelayProxy implements AutoCloseable {

    /** A chunk read from one side, to be written to the other at {@code dueNanos}. */
    private record Chunk(byte[] bytes, long dueNanos) {}

    private static final Chunk END = new Chunk(new byte[0], 0);

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    private volatile long delayNanos;
    private volatile long jitterNanos;
    /** How late a parked writer wakes, on average: parking that much less keeps the delay's mean. */
    private volatile long oversleepNanos;

    /** An oversleep past this is a stall of the machine, not the scheduler's habit: it is not learnt. */
    private static final long MAX_OVERSLEEP = 200_000;

    /** A proxy listening on {@code listen} (port 0: a free one) in front of {@code target}, without delay. */
    public DelayProxy(InetSocketAddress listen, InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket();
        server.bind(listen, 128);
        daemon("delay-proxy-accept", this::accept);
    }

    /** The port it listens on. */
    public int port() {
        return server.getLocalPort();
    }

    /**
     * Holds every chunk, in each direction, for {@code oneWay} plus a uniform draw in {@code [-jitter, +jitter]}
     * (never less than 0, never ahead of the chunk before it); zero for both forwards at once.
     */
    public void delay(Duration oneWay, Duration jitter) {
        if (oneWay.isNegative() || jitter.isNegative()) {
            throw new IllegalArgumentException("delay " + oneWay + " and jitter " + jitter + " must not be negative");
        }
        delayNanos = oneWay.toNanos();
        jitterNanos = jitter.toNanos();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket();
                try {
                    upstream.connect(target, 5000);
                } catch (IOException e) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    /** One direction: a reader stamps each chunk with when it is due, a writer sends it then, in order. */
    private void pump(Socket from, Socket to) {
        BlockingQueue<Chunk> line = new LinkedBlockingQueue<>();
        daemon("delay-proxy-read", () -> {
            byte[] buf = new byte[64 * 1024];
            long lastDue = 0;
            try (InputStream in = from.getInputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    // A link delays bytes, it does not reorder them: never due before the chunk ahead.
                    lastDue = Math.max(lastDue, System.nanoTime() + heldFor());
                    line.add(new Chunk(Arrays.copyOf(buf, n), lastDue));
                }
            } catch (IOException e) {
                // the connection was cut
            } finally {
                line.add(END);
            }
        });
        daemon("delay-proxy-write", () -> {
            try (OutputStream out = to.getOutputStream()) {
                Chunk chunk;
                while ((chunk = line.take()) != END) {
                    long early = oversleepNanos;
                    long leave = chunk.dueNanos() - early;
                    if (leave - System.nanoTime() > 0) {
                        // parkNanos may return at once: a permit left by the queue's own wake-up, or for no
                        // reason at all; only the clock says when the chunk is due.
                        for (long wait; (wait = leave - System.nanoTime()) > 0; ) {
                            LockSupport.parkNanos(wait);
                        }
                        long late = System.nanoTime() - leave;
                        // The scheduler wakes a parked thread tens of µs late (timer slack, a busy core):
                        // park that much less, so that chunks leave on time on average.
                        oversleepNanos = early + (Math.max(0, Math.min(late, MAX_OVERSLEEP)) - early) / 16;
                    }
                    out.write(chunk.bytes());
                }
            } catch (IOException e) {
                // the connection was cut
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                sockets.remove(from);
                sockets.remove(to);
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private long heldFor() {
        long mean = delayNanos;
        long jitter = jitterNanos;
        long offset = jitter == 0 ? 0 : ThreadLocalRandom.current().nextLong(-jitter, jitter + 1);
        return Math.max(0, mean + offset);
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** Stops accepting and closes every connection. */
    @Override
    public void close() {
        closed = true;
        for (Socket s : sockets) {
            closeQuietly(s);
        }
        sockets.clear();
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    public static void main(String[] args) throws IOException {
        System.exit(
                run(args, new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)), System.out));
    }

    /** The program: 0 when its input ended, 2 for bad arguments (said on {@code out}'s error stream). */
    static int run(String[] args, BufferedReader in, PrintStream out) throws IOException {
        List<DelayProxy> proxies = new ArrayList<>();
        try {
            Duration roundTrip = Duration.ZERO;
            Duration jitter = Duration.ZERO;
            List<String[]> pairs = new ArrayList<>();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--round-trip" -> roundTrip = Latency.parse("--round-trip", value(args, ++i));
                    case "--jitter" -> jitter = Latency.parse("--jitter", value(args, ++i));
                    default -> {
                        String[] pair = args[i].split("=", -1);
                        if (pair.length != 2) {
                            throw new IllegalArgumentException(
                                    "'" + args[i] + "': expected LISTEN=TARGET, each host:port");
                        }
                        pairs.add(pair);
                    }
                }
            }
            if (pairs.isEmpty()) {
                throw new IllegalArgumentException("no LISTEN=TARGET given");
            }
            for (String[] pair : pairs) {
                InetSocketAddress listen = address("LISTEN", pair[0]);
                DelayProxy proxy = new DelayProxy(listen, address("TARGET", pair[1]));
                proxies.add(proxy);
                out.println(listen.getHostString() + ":" + proxy.port() + "=" + pair[1]);
            }
            set(proxies, roundTrip, jitter);
        } catch (IllegalArgumentException e) {
            System.err.println("delay-proxy: " + e.getMessage());
            proxies.forEach(DelayProxy::close);
            return 2;
        }
        out.println("ready");
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            try {
                if (words.length != 3 || !words[0].equals("round-trip")) {
                    throw new IllegalArgumentException(
                            "'" + line + "': expected 'round-trip D J', e.g. round-trip 1ms 0");
                }
                set(proxies, Latency.parse("round-trip", words[1]), Latency.parse("jitter", words[2]));
                out.println("ok round-trip " + words[1] + " jitter " + words[2]);
            } catch (IllegalArgumentException e) {
                out.println("error " + e.getMessage());
            }
            out.flush();
        }
        proxies.forEach(DelayProxy::close);
        return 0;
    }

    /** Half the round trip each way; the jitter halved too, so that a round trip is {@code roundTrip ± jitter}. */
    private static void set(List<DelayProxy> proxies, Duration roundTrip, Duration jitter) {
        for (DelayProxy p : proxies) {
            p.delay(roundTrip.dividedBy(2), jitter.dividedBy(2));
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }

    private static InetSocketAddress address(String what, String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException(what + " '" + text + "': expected host:port");
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " '" + text + "': the port is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(what + " '" + text + "': the port is outside 0 to 65535");
        }
        return new InetSocketAddress(text.substring(0, colon), port);
    }
}
