package dev.dedup.agent.testing;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} (or another server of the same protocol, {@link Binary}) on a free loopback port, or on
 * a {@link Host} of a test's own network, started by a test with the configuration it needs and stopped by its PID.
 * Never the machine's shared 6379.
 */
public final class RedisServer implements AutoCloseable {

    /** The server programs the tests start: Redis, and Valkey (a fork of Redis 7.2 that speaks the same protocol). */
    public enum Binary {
        /** Debian's {@code redis-server} (Redis 7.0 on bookworm). */
        REDIS("redis-server", "apt-get install redis-server"),
        /** {@code valkey-server}: Valkey 8 from Debian's bookworm-backports. */
        VALKEY("valkey-server", "apt-get install -t bookworm-backports valkey-server"),
        /**
         * {@code redis-server-8.0}: Debian trixie's {@code redis-server} (Redis 8.0, the major version
         * deploy/kubernetes runs), through a wrapper that runs it with a trixie root's own loader and libraries.
         */
        REDIS_8_0(
                "redis-server-8.0",
                "mmdebstrap --variant=apt --include=redis-server,valkey-server trixie ROOT, then a redis-server-8.0"
                        + " that execs ROOT's ld-linux with --library-path on ROOT/usr/bin/redis-server"),
        /** {@code valkey-server-8.1}: Debian trixie's {@code valkey-server} (Valkey 8.1), the same way. */
        VALKEY_8_1(
                "valkey-server-8.1",
                "mmdebstrap --variant=apt --include=redis-server,valkey-server trixie ROOT, then a valkey-server-8.1"
                        + " that execs ROOT's ld-linux with --library-path on ROOT/usr/bin/valkey-server");

        private final String command;
        private final String install;

        Binary(String command, String install) {
            this.command = command;
            this.install = install;
        }

        /** The program's name, found on the {@code PATH}. */
        public String command() {
            return command;
        }

        /**
         * Fails, with the command that installs it, when the program is not on the {@code PATH}: a test that
         * needs Valkey fails rather than skipping, so that a CI without it cannot pass unnoticed.
         */
        public String require() {
            String path = System.getenv().getOrDefault("PATH", "");
            for (String dir : path.split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, command))) {
                    return command;
                }
            }
            throw new IllegalStateException(
                    command + " is not on the PATH: install it (" + install + "; .ci/run does it on Debian)");
        }
    }

    private final Binary binary;
    private final Host host;
    private final Path dir;
    private final int port;
    private final List<String> extraArgs;
    private Process process;
    /** The user and password the test's own commands log in with, or null for the default user. */
    private volatile String[] login;

    private RedisServer(Binary binary, Host host, Path dir, int port, List<String> extraArgs) {
        this.binary = binary;
        this.host = host;
        this.dir = dir;
        this.port = port;
        this.extraArgs = extraArgs;
    }

    /** Starts a {@code redis-server} keeping nothing on disk. */
    public static RedisServer start(Path dir, String... args) throws IOException, InterruptedException {
        return start(Binary.REDIS, dir, args);
    }

    /** Starts {@code binary} keeping nothing on disk. */
    public static RedisServer start(Binary binary, Path dir, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("--save", "", "--appendonly", "no"));
        all.addAll(List.of(args));
        return startWith(binary, dir, all);
    }

    /** Starts a server with an append-only file fsynced on every write, kept in {@code dir}. */
    public static RedisServer startWithAof(Path dir, String... args) throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("--save", "", "--appendonly", "yes", "--appendfsync", "always"));
        all.addAll(List.of(args));
        return startWith(Binary.REDIS, dir, all);
    }

    /**
     * Starts a {@code redis-server} keeping nothing on disk on {@code host}, at {@code port} of its address (a
     * namespace has ports of its own, so tests choose them).
     */
    public static RedisServer startOn(Host host, int port, Path dir, String... args)
            throws IOException, InterruptedException {
        List<String> all = new ArrayList<>(List.of("--save", "", "--appendonly", "no"));
        all.addAll(List.of(args));
        return startWith(Binary.REDIS, host, port, dir, all);
    }

    private static RedisServer startWith(Binary binary, Path dir, List<String> args)
            throws IOException, InterruptedException {
        return startWith(binary, Host.LOOPBACK, AgentProcess.freePort(), dir, args);
    }

    private static RedisServer startWith(Binary binary, Host host, int port, Path dir, List<String> args)
            throws IOException, InterruptedException {
        binary.require();
        Files.createDirectories(dir);
        RedisServer server = new RedisServer(binary, host, dir, port, args);
        server.launch();
        return server;
    }

    /** The program this server runs. */
    public Binary binary() {
        return binary;
    }

    private void launch() throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(
                binary.command(),
                "--port",
                String.valueOf(port),
                "--bind",
                host.address(),
                "--dir",
                dir.toString(),
                "--daemonize",
                "no",
                // Off loopback the server is on a test's own network: reachable from its other hosts.
                "--protected-mode",
                host.isLoopback() ? "yes" : "no",
                "--maxmemory-policy",
                "noeviction",
                "--logfile",
                dir.resolve("redis-" + port + ".log").toString()));
        cmd.addAll(extraArgs);
        process = new ProcessBuilder(host.command(cmd))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis-" + port + ".out").toFile())
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        binary.command() + " exited with " + process.exitValue() + ": " + log());
            }
            try {
                String pong = command("PING");
                // A server that requires a login answers NOAUTH: it is up all the same.
                if (pong.contains("PONG") || pong.contains("NOAUTH")) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet, or loading
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(binary.command() + " on " + port + " not ready: " + log());
    }

    public String uri() {
        return "redis://" + host.address() + ":" + port;
    }

    /** Where it runs. */
    public Host host() {
        return host;
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /**
     * Has the test's own commands ({@link #command}, {@link #call}) log in as {@code user} first: for a server whose
     * default user is off.
     */
    public RedisServer login(String user, String password) {
        this.login = new String[] {user, password};
        return this;
    }

    /** SIGKILL, like a crashed host: nothing more is written. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    /** Starts again on the same port and directory (an AOF there is loaded). */
    public void restart() throws IOException, InterruptedException {
        if (process.isAlive()) {
            kill();
        }
        launch();
    }

    /**
     * One command in the inline protocol, answered as text (enough for tests: PING, INFO, CONFIG, OBJECT,
     * SCRIPT FLUSH, DBSIZE, ...). Arguments must not contain spaces.
     */
    public String command(String... words) throws IOException {
        try (Socket s = new Socket(host.address(), port)) {
            s.setSoTimeout(10_000);
            authenticate(s, login);
            s.getOutputStream().write((String.join(" ", words) + "\r\n").getBytes(StandardCharsets.UTF_8));
            s.getOutputStream().flush();
            byte[] buf = new byte[1 << 16];
            StringBuilder out = new StringBuilder();
            var in = s.getInputStream();
            int n = in.read(buf);
            if (n < 0) {
                throw new IOException("closed");
            }
            out.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            // Bulk replies may come in several reads: read until the declared length has arrived.
            while (incomplete(out)) {
                n = in.read(buf);
                if (n < 0) {
                    break;
                }
                out.append(new String(buf, 0, n, StandardCharsets.UTF_8));
            }
            return out.toString();
        }
    }

    /**
     * One command in RESP form, so that arguments may hold any bytes (binary keys), with the reply parsed:
     * a simple string as {@code String}, an integer as {@code Long}, a bulk string as {@code byte[]} (null
     * when absent), an array as {@code List<Object>}. An error reply throws {@link IllegalStateException}.
     */
    public Object call(byte[]... args) throws IOException {
        try (Socket s = new Socket(host.address(), port)) {
            s.setSoTimeout(10_000);
            authenticate(s, login);
            java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream();
            req.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (byte[] a : args) {
                req.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                req.writeBytes(a);
                req.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            s.getOutputStream().write(req.toByteArray());
            s.getOutputStream().flush();
            return readReply(new java.io.DataInputStream(new java.io.BufferedInputStream(s.getInputStream())));
        }
    }

    /** {@link #call(byte[]...)} with UTF-8 words. */
    public Object call(String... words) throws IOException {
        byte[][] args = new byte[words.length][];
        for (int i = 0; i < words.length; i++) {
            args[i] = words[i].getBytes(StandardCharsets.UTF_8);
        }
        return call(args);
    }

    /** {@code TYPE key}: {@code string}, {@code hash}, ..., {@code none}. */
    public String type(byte[] key) throws IOException {
        Object reply = call("TYPE".getBytes(StandardCharsets.US_ASCII), key);
        return reply instanceof byte[] bytes ? new String(bytes, StandardCharsets.US_ASCII) : String.valueOf(reply);
    }

    /** Every key of the database, by SCAN (binary keys intact). */
    public List<byte[]> keys() throws IOException {
        List<byte[]> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<?> reply = (List<?>) call("SCAN", cursor, "COUNT", "1000");
            cursor = new String((byte[]) reply.get(0), StandardCharsets.US_ASCII);
            for (Object k : (List<?>) reply.get(1)) {
                keys.add((byte[]) k);
            }
        } while (!cursor.equals("0"));
        return keys;
    }

    /**
     * Sends {@code AUTH user password} on {@code s} when {@code login} is given, and reads its answer byte by byte, so
     * that the next command's reply is read from the start; a refusal is an {@link IOException}.
     */
    static void authenticate(Socket s, String[] login) throws IOException {
        if (login == null) {
            return;
        }
        StringBuilder req = new StringBuilder("*3\r\n$4\r\nAUTH\r\n");
        for (String w : login) {
            req.append('$')
                    .append(w.getBytes(StandardCharsets.UTF_8).length)
                    .append("\r\n")
                    .append(w)
                    .append("\r\n");
        }
        s.getOutputStream().write(req.toString().getBytes(StandardCharsets.UTF_8));
        s.getOutputStream().flush();
        var in = new java.io.DataInputStream(s.getInputStream());
        String answer = (char) in.read() + readLine(in);
        if (!answer.equals("+OK")) {
            throw new IOException("AUTH as " + login[0] + ": " + answer);
        }
    }

    private static Object readReply(java.io.DataInputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new IOException("closed");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("redis answered: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] b = new byte[len];
                in.readFully(b);
                readLine(in);
                return b;
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> out = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    out.add(readReply(in));
                }
                return out;
            }
            default:
                throw new IOException("not a RESP reply: " + (char) type + line);
        }
    }

    private static String readLine(java.io.DataInputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("closed");
            }
            sb.append((char) c);
        }
        in.read(); // '\n'
        return sb.toString();
    }

    private static boolean incomplete(StringBuilder reply) {
        if (reply.length() == 0 || reply.charAt(0) != '$') {
            return false;
        }
        int nl = reply.indexOf("\r\n");
        int len = Integer.parseInt(reply.substring(1, nl));
        return len >= 0 && reply.length() < nl + 2 + len + 2;
    }

    /** A field of INFO, e.g. {@code used_memory}. */
    public long info(String section, String field) throws IOException {
        for (String line : command("INFO", section).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return Long.parseLong(line.substring(field.length() + 1).trim());
            }
        }
        throw new IllegalStateException("no " + field + " in INFO " + section);
    }

    public String log() {
        try {
            return Files.readString(dir.resolve("redis-" + port + ".log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Waits until {@code replica} has received every write this server had made when called: its replication
     * offset reaches this server's. ({@code WAIT} on a connection of the test's own would count only that
     * connection's writes, none: it answers at once, whatever the agent's connection wrote.)
     */
    public void awaitReplicated(RedisServer replica, Duration timeout) throws IOException, InterruptedException {
        long offset = offset(command("INFO", "replication"), "master_repl_offset:");
        await(timeout, () -> {
            try {
                return offset(replica.command("INFO", "replication"), "slave_repl_offset:") >= offset;
            } catch (IOException e) {
                return false;
            }
        });
    }

    private static long offset(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field)) {
                return Long.parseLong(line.substring(field.length()).trim());
            }
        }
        return -1;
    }

    /** Waits a little for a condition, for state that Redis or Lettuce reach asynchronously. */
    public static void await(Duration timeout, java.util.function.BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached within " + timeout);
            }
            Thread.sleep(20);
        }
    }
}
