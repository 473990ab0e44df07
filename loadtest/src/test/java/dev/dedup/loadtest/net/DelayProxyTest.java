package dev.dedup.loadtest.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The delaying proxy in front of an echo server on loopback: bytes arrive late, whole and in order. */
class DelayProxyTest {

    private ServerSocket echo;
    private DelayProxy proxy;

    @BeforeEach
    void echoServer() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            try (Socket s = echo.accept();
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // the test is over
            }
        });
        t.setDaemon(true);
        t.start();
        proxy = new DelayProxy(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                new InetSocketAddress(InetAddress.getLoopbackAddress(), echo.getLocalPort()));
    }

    @AfterEach
    void close() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void aRoundTripTakesTheDelayBothWays_andPipelinedBytesKeepTheirOrder() throws IOException {
        // Long enough that the machine's own pauses (a busy core: up to a few hundred ms) cannot blur the bounds.
        proxy.delay(Duration.ofMillis(250), Duration.ZERO);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            s.setTcpNoDelay(true);
            byte[] sent = new byte[3000];
            for (int i = 0; i < sent.length; i++) {
                sent[i] = (byte) i;
            }
            long start = System.nanoTime();
            OutputStream out = s.getOutputStream();
            // Three writes before any answer: the link carries them at once, not one round trip each.
            for (int i = 0; i < 3; i++) {
                out.write(sent, i * 1000, 1000);
                out.flush();
            }
            byte[] got = s.getInputStream().readNBytes(sent.length);
            double ms = (System.nanoTime() - start) / 1e6;
            assertArrayEquals(sent, got);
            assertTrue(ms >= 500, "a round trip of two 250 ms halves took " + ms + " ms");
            assertTrue(ms < 2.5 * 500, "pipelined writes are not a round trip each (3 would take 1,500 ms): " + ms);
        }
    }

    @Test
    void aStrayWakeUpOfTheWriters_sendsNothingBeforeItIsDue() throws Exception {
        // A parked thread may wake before its time: a permit its queue left behind, or for no reason. Here every
        // writer of the proxy is woken every millisecond while the bytes are held.
        proxy.delay(Duration.ofMillis(150), Duration.ZERO);
        java.util.concurrent.atomic.AtomicBoolean waking = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread waker = new Thread(() -> {
            while (waking.get()) {
                Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().equals("delay-proxy-write"))
                        .forEach(java.util.concurrent.locks.LockSupport::unpark);
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        });
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            s.setTcpNoDelay(true);
            waker.start();
            long start = System.nanoTime();
            s.getOutputStream().write(new byte[] {1, 2, 3});
            s.getOutputStream().flush();
            byte[] got = s.getInputStream().readNBytes(3);
            double ms = (System.nanoTime() - start) / 1e6;
            assertArrayEquals(new byte[] {1, 2, 3}, got);
            assertTrue(ms >= 300, "a round trip of two 150 ms halves took " + ms + " ms");
        } finally {
            waking.set(false);
            waker.join();
        }
    }

    @Test
    void theProgram_refusesWhatItCannotRead_namingIt() throws IOException {
        assertEquals(2, program("--round-trip", "1", "127.0.0.1:0=127.0.0.1:1"));
        assertEquals(2, program("127.0.0.1:0"));
        assertEquals(2, program("--round-trip", "1ms"));
        assertEquals(2, program("127.0.0.1:0=localhost:99999"));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Latency.parse("NET_DELAY", "fast"));
        assertEquals("NET_DELAY: 'fast' has no unit (us, ms or s; e.g. 0.3ms)", e.getMessage());
        assertEquals(Duration.ofNanos(300_000), Latency.parse("x", "0.3ms"));
        assertEquals(Duration.ofNanos(300_000), Latency.parse("x", "300us"));
        assertThrows(IllegalArgumentException.class, () -> Latency.parse("x", "-1ms"));
    }

    @Test
    void theProgram_takesANewRoundTripFromItsInput_andStopsWhenItEnds() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int status = DelayProxy.run(
                new String[] {"127.0.0.1:0=127.0.0.1:" + echo.getLocalPort()},
                new BufferedReader(new StringReader("round-trip 1ms 0.2ms\nround-trip soon 0\n")),
                new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, status);
        assertTrue(out.matches("(?s)127\\.0\\.0\\.1:\\d+=127\\.0\\.0\\.1:\\d+\nready\n.*"), out);
        assertTrue(out.contains("ok round-trip 1ms jitter 0.2ms\n"), out);
        assertTrue(out.contains("error round-trip: 'soon' has no unit"), out);
    }

    private static int program(String... args) throws IOException {
        return DelayProxy.run(
                args, new BufferedReader(new StringReader("")), new PrintStream(new ByteArrayOutputStream()));
    }
}
