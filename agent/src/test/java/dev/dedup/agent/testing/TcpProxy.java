package dev.dedup.agent.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A TCP proxy in front of a server, for cutting or stalling a connection in the middle of a command:
 * {@link #dropAll()} resets every connection (new ones are accepted), {@link #stall(boolean)} stops forwarding
 * bytes in both directions until released. A link that delays is loadtest's {@code DelayProxy}.
 */
public final class TcpProxy implements AutoCloseable {

    /** A chunk read from one side, to be written to the other. */
    private record Chunk(byte[] bytes) {}

    private static final Chunk END = new Chunk(new byte[0]);

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean stalled;
    private volatile boolean closed;

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

    /** One direction: a reader queues each chunk, a writer sends them in order unless stalled. */
    private void pump(Socket from, Socket to) {
        BlockingQueue<Chunk> line = new LinkedBlockingQueue<>();
        daemon("tcp-proxy-read", () -> {
            byte[] buf = new byte[16 * 1024];
            try (InputStream in = from.getInputStream()) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    line.add(new Chunk(Arrays.copyOf(buf, n)));
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
