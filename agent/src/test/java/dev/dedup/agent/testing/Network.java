package dev.dedup.agent.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A network of its own for Jepsen-style fault tests: hosts are network namespaces, each with one veth on a bridge
 * that lives in a namespace of its own (so that the machine's forwarding rules never see the traffic), and this
 * machine joins the bridge as {@link #gateway()} so that the test can reach every host. Processes run on a host
 * through {@link Host#launcher()}.
 *
 * <p>Faults: {@link #partition} drops every packet between two hosts (iptables in both namespaces), {@link #heal}
 * lets them through again. A slow link (a delaying proxy in a host's path, loadtest's {@code SlowLink}) is built
 * from {@link #gateway()} and {@link Host#command}.
 *
 * <p>Everything is named {@code <prefix>-*}: {@link #close()} removes the namespaces (their veths, bridge and
 * iptables rules go with them) after killing what still runs there, and {@link #create} first removes what a run
 * that crashed left behind. Needs root and {@code ip netns}: {@link #unavailable()} says why not.
 */
public final class Network implements AutoCloseable {

    private final String prefix;
    private final String subnet;
    private final String switchNs;
    private final Map<String, Host> hosts = new LinkedHashMap<>();

    private Network(String prefix, String subnet) {
        this.prefix = prefix;
        this.subnet = subnet;
        this.switchNs = prefix + "-sw";
    }

    /** Why this machine cannot run such tests (not root, no {@code ip netns}, no iptables), or empty. */
    public static Optional<String> unavailable() {
        if (!System.getProperty("os.name", "")
                .toLowerCase(java.util.Locale.ROOT)
                .contains("linux")) {
            return Optional.of("network namespaces need Linux");
        }
        try {
            String uid = run(List.of("id", "-u")).trim();
            if (!uid.equals("0")) {
                return Optional.of("network namespaces need root (uid " + uid + ")");
            }
            String probe = "ddprobe" + ProcessHandle.current().pid();
            run(List.of("ip", "netns", "add", probe));
            try {
                run(List.of("ip", "netns", "exec", probe, "iptables", "-w", "-S"));
            } finally {
                run(List.of("ip", "netns", "del", probe));
            }
            return Optional.empty();
        } catch (IOException | IllegalStateException e) {
            return Optional.of("ip netns or iptables unavailable: " + e.getMessage());
        }
    }

    /**
     * A network of hosts {@code <subnet>.<n>/24} (e.g. {@code 10.213.0}), a private range the machine does not
     * use; this machine is {@code <subnet>.1}. Leftovers named {@code <prefix>-*} are removed first.
     */
    public static Network create(String prefix, String subnet) throws IOException {
        Network net = new Network(prefix, subnet);
        net.removeLeftovers();
        try {
            run(List.of("ip", "netns", "add", net.switchNs));
            net.in(net.switchNs, "ip", "link", "add", "name", "br0", "type", "bridge");
            net.in(net.switchNs, "ip", "link", "set", "br0", "up");
            run(List.of(
                    "ip",
                    "link",
                    "add",
                    net.gatewayLink(),
                    "type",
                    "veth",
                    "peer",
                    "name",
                    "gw",
                    "netns",
                    net.switchNs));
            net.in(net.switchNs, "ip", "link", "set", "gw", "master", "br0", "up");
            run(List.of("ip", "addr", "add", net.gateway() + "/24", "dev", net.gatewayLink()));
            run(List.of("ip", "link", "set", net.gatewayLink(), "up"));
            return net;
        } catch (IOException | RuntimeException e) {
            net.close();
            throw e;
        }
    }

    private String gatewayLink() {
        return prefix + "-gw";
    }

    /** This machine's address on the network: where the test reaches the hosts from. */
    public String gateway() {
        return subnet + ".1";
    }

    /** A new host {@code <prefix>-<name>} at {@code <subnet>.<octet>}. */
    public Host host(String name, int octet) throws IOException {
        if (octet < 2 || octet > 254) {
            throw new IllegalArgumentException("octet " + octet + ": 2..254 (1 is the gateway)");
        }
        String ns = prefix + "-" + name;
        String address = subnet + "." + octet;
        run(List.of("ip", "netns", "add", ns));
        Host host = new Host(ns, address, List.of("ip", "netns", "exec", ns));
        hosts.put(ns, host);
        in(switchNs, "ip", "link", "add", "h-" + name, "type", "veth", "peer", "name", "eth0", "netns", ns);
        in(switchNs, "ip", "link", "set", "h-" + name, "master", "br0", "up");
        in(ns, "ip", "link", "set", "lo", "up");
        in(ns, "ip", "addr", "add", address + "/24", "dev", "eth0");
        in(ns, "ip", "link", "set", "eth0", "up");
        return host;
    }

    /** Drops every packet between {@code a} and {@code b}, both ways, as a cut cable would (no reset, no error). */
    public void partition(Host a, Host b) throws IOException {
        drop(a, b, "-A");
        drop(b, a, "-A");
    }

    /** Undoes {@link #partition}. */
    public void heal(Host a, Host b) throws IOException {
        drop(a, b, "-D");
        drop(b, a, "-D");
    }

    /** Cuts the network in two: every host of {@code side} from every host of {@code other}. */
    public void partition(List<Host> side, List<Host> other) throws IOException {
        for (Host a : side) {
            for (Host b : other) {
                partition(a, b);
            }
        }
    }

    /** Heals every partition and lifts every packet loss (every host's iptables filter rules). */
    public void healAll() throws IOException {
        for (Host h : hosts.values()) {
            in(h.name(), "iptables", "-w", "-F");
        }
    }

    private void drop(Host on, Host peer, String op) throws IOException {
        in(on.name(), "iptables", "-w", op, "INPUT", "-s", peer.address(), "-j", "DROP");
        in(on.name(), "iptables", "-w", op, "OUTPUT", "-d", peer.address(), "-j", "DROP");
    }

    /** Runs a command in namespace {@code ns}; fails with its output unless it exits 0. */
    private String in(String ns, String... command) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        cmd.addAll(List.of(command));
        return run(cmd);
    }

    private static String run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + ": no exit within 30 s");
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(String.join(" ", cmd) + ": interrupted", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.trim());
        }
        return out;
    }

    /** Namespaces named {@code <prefix>-*}, this run's or a crashed one's. */
    private List<String> namespaces() throws IOException {
        List<String> out = new ArrayList<>();
        for (String line : run(List.of("ip", "netns", "list")).split("\n")) {
            String name = line.trim().split("\\s+")[0];
            if (name.startsWith(prefix + "-")) {
                out.add(name);
            }
        }
        return out;
    }

    /** Kills what runs in each of our namespaces (by PID) and deletes them, and the gateway's veth. */
    private void removeLeftovers() throws IOException {
        for (String ns : namespaces()) {
            for (String pid : run(List.of("ip", "netns", "pids", ns)).split("\\s+")) {
                if (!pid.isBlank()) {
                    ProcessHandle.of(Long.parseLong(pid.trim())).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
            awaitNoProcesses(ns);
            run(List.of("ip", "netns", "del", ns));
        }
        try {
            run(List.of("ip", "link", "del", gatewayLink()));
        } catch (IllegalStateException e) {
            // Deleting the switch's namespace takes the veth pair with it, a moment later: gone is fine.
            if (run(List.of("ip", "-o", "link", "show")).contains(" " + gatewayLink() + "@")) {
                throw e;
            }
        }
    }

    private static void awaitNoProcesses(String ns) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!run(List.of("ip", "netns", "pids", ns)).isBlank()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("processes still running in " + ns);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() throws IOException {
        hosts.clear();
        removeLeftovers();
    }
}
