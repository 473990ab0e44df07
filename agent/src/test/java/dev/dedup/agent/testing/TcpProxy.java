package dev.dedup.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy in front of a server, for cutting, stalling or slowing a connection in the middle of a command:
 * {@link #dropAll()} resets every connection (new ones are accepted), {@link #stall(boolean)} stops forwarding
 * bytes in both directions until released, {@link #delay(Duration, Duration)} holds every chunk back for a time
 * drawn around a mean, in order, as a slow link would.
 */
public final class TcpProxy implements AutoCloseable {

    /** A chunk read from one side, to be written to the other at {@code dueNanos}. */
    private record Chunk(byte[] bytes, long dueNanos) {}

    private static final Chunk END = new Chunk(new byte[0], 0);

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean stalled;
    private volatile boolean closed;
    private volatile long delayNanos;
    private volatile long jitterNanos;

    /** A proxy on a free loopback port in front of a loopback server. */
    public TcpProxy(int targetPort) throws IOException {
        this(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
    }

    /** A proxy listening on {@code listen} (port 0: a free one) in front of {@code target}. */
    public TcpProxy(InetSocketAddress listen, InetSocketAddress target) throws IOException {
        this.target = target;
        this.server = new ServerSocket();
        server.bind(listen, 50);
        Thread acceptor = new Thread(this::accept, "tcp-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public int port() {
        return server.getLocalPort();
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
        daemon("tcp-proxy-read", () -> {
            byte[] buf = new byte[16 * 1024];
            long lastDue = 0;
            try (InputStream in = from.getInputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    long due = System.nanoTime() + heldFor();
                    // A link delays bytes, it does not reorder them: never due before the chunk ahead.
                    lastDue = Math.max(lastDue, due);
                    line.add(new Chunk(Arrays.copyOf(buf, n), lastDue));
                }
            } catch (IOException e) {
                // the connection was cut
            } finally {
                line.add(END);
            }
        });
        daemon("tcp-proxy-write", () -> {
            try (OutputStream out = to.getOutputStream()) {
                Chunk chunk;
                while ((chunk = line.take()) != END) {
                    long wait = chunk.dueNanos() - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    while (stalled && !from.isClosed()) {
                        Thread.sleep(5);
                    }
                    out.write(chunk.bytes());
                    out.flush();
                }
            } catch (IOException | InterruptedException e) {
                // the connection was cut
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private long heldFor() {
        long mean = delayNanos;
        long jitter = jitterNanos;
        if (mean == 0 && jitter == 0) {
            return 0;
        }
        long offset = jitter == 0 ? 0 : ThreadLocalRandom.current().nextLong(-jitter, jitter + 1);
        return Math.max(0, mean + offset);
    }

    private static void daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    /** Resets every open connection, like a network fault; the proxy keeps accepting new ones. */
    public void dropAll() {
        for (Socket s : sockets) {
            try {
                s.setSoLinger(true, 0); // RST, not FIN
            } catch (IOException ignored) {
                // already closed
            }
            closeQuietly(s);
        }
        sockets.clear();
    }

    /** While stalled, bytes are held back in both directions: commands neither fail nor finish. */
    public void stall(boolean on) {
        stalled = on;
    }

    /**
     * Holds every chunk, in each direction, for {@code mean} plus a uniform draw in {@code [-jitter, +jitter]}
     * (never less than 0, never ahead of the chunk before it); zero for both forwards at once.
     */
    public void delay(Duration mean, Duration jitter) {
        delayNanos = mean.toNanos();
        jitterNanos = jitter.toNanos();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public void close() {
        closed = true;
        stalled = false;
        dropAll();
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}
