package dev.dedup.agent.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.agent.testing.AgentProcess;
import dev.dedup.wire.Item;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real jar on a 96 MiB heap, as small as the sidecar's, sent 16 bodies of just under the default max-body
 * (8 MiB) on 16 connections at once, each held back by its last byte so that the agent must hold all of them
 * together: it holds those its budget of request bodies allows and answers the others 503 at once, and is alive and
 * answering claims afterwards. Without the budget it held every body, 128 MiB, and died of OutOfMemoryError.
 */
class BodyFloodIT {

    private static final int CONNECTIONS = 16;
    private static final int BODY = (8 << 20) - 1024;

    @TempDir
    Path work;

    @Test
    void sixteenBodiesHeldAtOnce_onASmallHeap_someAre503_andTheAgentLives() throws Exception {
        try (AgentProcess agent =
                AgentProcess.start(work, Map.of("JAVA_TOOL_OPTIONS", "-Xmx96m"), "--embedded-slots", "65536")) {
            byte[] chunk = new byte[1 << 20];
            List<Socket> sockets = new ArrayList<>();
            Map<String, Integer> outcomes = new TreeMap<>();
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    Socket s = new Socket("127.0.0.1", agent.port());
                    s.setSoTimeout(60_000);
                    sockets.add(s);
                    OutputStream out = s.getOutputStream();
                    try {
                        out.write(
                                ("POST /v1/claims HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-dedup-batch"
                                                + "\r\nContent-Length: " + BODY + "\r\n\r\n")
                                        .getBytes(StandardCharsets.US_ASCII));
                        for (int sent = 0; sent < BODY - 1; sent += chunk.length) {
                            out.write(chunk, 0, Math.min(chunk.length, BODY - 1 - sent));
                        }
                        out.flush();
                    } catch (IOException e) {
                        // refused before its body was read: the agent answered 503 and closed the connection
                    }
                }
                for (Socket s : sockets) {
                    String outcome;
                    try {
                        s.getOutputStream().write(0);
                        s.getOutputStream().flush();
                    } catch (IOException e) {
                        // already answered and closed
                    }
                    try {
                        outcome = statusLine(s.getInputStream());
                    } catch (IOException e) {
                        outcome = "closed";
                    }
                    outcomes.merge(outcome, 1, Integer::sum);
                }
            } finally {
                for (Socket s : sockets) {
                    s.close();
                }
            }

            assertFalse(agent.output().contains("OutOfMemoryError"), agent.output());
            assertTrue(
                    outcomes.keySet().stream().anyMatch(o -> o.contains(" 503 ")), "some refused at once: " + outcomes);
            assertEquals(
                    List.of("new"),
                    agent.http().claim("flood", List.of(new Item("after-the-flood", "o1"))),
                    "alive and answering; outcomes " + outcomes);
        }
    }

    /** The response's status line, or what ended the connection instead. */
    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') {
            line.append((char) c);
        }
        return line.length() == 0 ? "closed" : line.toString().trim();
    }
}
