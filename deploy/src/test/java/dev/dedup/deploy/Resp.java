package dev.dedup.deploy;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One connection to a Redis server or sentinel, speaking RESP: replies as String (simple and bulk), Long or
 * List; an error reply comes back as a String starting with {@code -}, so that refusals can be checked.
 */
final class Resp implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    Resp(int port) throws IOException {
        this(InetAddress.getLoopbackAddress(), port);
    }

    /** To {@code port} on another address of this machine (a pod played on 127.0.0.100, say). */
    Resp(InetAddress address, int port) throws IOException {
        socket = new Socket(address, port);
        socket.setSoTimeout(10_000);
        out = socket.getOutputStream();
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
    }

    Object call(String... args) throws IOException {
        StringBuilder req = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            byte[] b = a.getBytes(StandardCharsets.UTF_8);
            req.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
        }
        out.write(req.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        return read();
    }

    String text(String... args) throws IOException {
        return String.valueOf(call(args));
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                return "-" + line;
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] b = new byte[len];
                in.readFully(b);
                line();
                return new String(b, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                List<Object> list = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    list.add(read());
                }
                return list;
            }
            default:
                throw new IOException("not RESP: " + (char) type + line);
        }
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("closed");
            }
            sb.append((char) c);
        }
        in.read();
        return sb.toString();
    }

    /** Whether something answers RESP on the port (a NOAUTH error counts). */
    static boolean answers(int port) {
        try (Resp r = new Resp(port)) {
            String pong = r.text("PING");
            return pong.contains("PONG") || pong.contains("NOAUTH");
        } catch (IOException notYet) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
