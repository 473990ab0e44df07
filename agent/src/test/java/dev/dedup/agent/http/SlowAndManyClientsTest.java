package dev.dedup.agent.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.Agent;
import dev.dedup.agent.testing.AgentHttp;
import dev.dedup.agent.testing.AgentUnderTest;
import dev.dedup.wire.Item;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Clients that send slowly, send half a request, or open many connections do not stop the agent serving others. */
class SlowAndManyClientsTest {

    /** A one-second idle timeout, so that a stalled client is cut off within the test. */
    @RegisterExtension
    static final AgentUnderTest tested = AgentUnderTest.embedded(http -> http.maxBatch(1000)
            .maxBody(1 << 20)
            .idleTimeout(Duration.ofSeconds(1))
            .eventLoops(2));

    private final Agent agent = tested.agent();
    private final AgentHttp http = tested.client();

    private Socket connect() throws Exception {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), agent.port());
        s.setSoTimeout(5000);
        return s;
    }

    @Test
    void aClientThatStopsMidRequestIsDisconnectedAfterTheIdleTimeout_andOthersAreServedMeanwhile() throws Exception {
        try (Socket slow = connect()) {
            OutputStream out = slow.getOutputStream();
            out.write(("POST /v1/claims HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                            + "Content-Length: 1000\r\n\r\n{\"items\":[")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertEquals(List.of("new"), http.claim("t", List.of(new Item("served-while-slow", "o"))));
            long start = System.nanoTime();
            InputStream in = slow.getInputStream();
            int read;
            try {
                read = in.read();
                while (read >= 0) {
                    read = in.read(); // drain whatever the agent answers before it closes
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the idle connection was not closed within 5 s");
            } catch (java.net.SocketException reset) {
                read = -1;
            }
            long tookMillis = (System.nanoTime() - start) / 1_000_000;
            assertEquals(-1, read);
            assertTrue(tookMillis < 4000, "closed after about the 1 s idle timeout, took " + tookMillis + " ms");
        }
    }

    @Test
    void aTruncatedBodyClaimsNothing() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream()
                    .write(("POST /v1/claims HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: 100\r\n\r\n{\"items\":[{\"id\":\"truncated-id\",\"owner\":\"o\"}")
                            .getBytes(StandardCharsets.US_ASCII));
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            while (true) {
                try {
                    if (in.read() < 0) {
                        break;
                    }
                } catch (java.net.SocketException reset) {
                    break;
                }
            }
        }
        assertEquals(List.of("new"), http.claim("default", List.of(new Item("truncated-id", "other"))));
    }

    @Test
    void fiveHundredIdleConnectionsDoNotStopOthersBeingServed() throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 500; i++) {
                idle.add(connect());
            }
            for (int i = 0; i < 20; i++) {
                assertEquals(List.of("new"), http.claim("t", List.of(new Item("many-" + i, "o"))));
            }
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }
}
