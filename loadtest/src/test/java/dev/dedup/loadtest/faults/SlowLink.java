package dev.dedup.loadtest.faults;

import dev.dedup.agent.testing.Host;
import dev.dedup.agent.testing.Network;
import dev.dedup.loadtest.net.DelayProxy;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The path from one host of a {@link Network} to some servers, through delaying proxies ({@link DelayProxy}, the
 * one {@code bench-redis.sh} puts in front of its shards) on the network's gateway: {@code netem}'s delay and loss,
 * without netem. A DNAT rule in the host's namespace sends its connections to each server through that server's
 * proxy; connections made before {@link #open} keep their direct path, so open it before the host connects.
 */
final class SlowLink implements AutoCloseable {

    private final Host from;
    private final String gateway;
    private final List<DelayProxy> proxies = new ArrayList<>();
    private final List<List<String>> natRules = new ArrayList<>();
    private final List<List<String>> lossRules = new ArrayList<>();

    private SlowLink(Host from, String gateway) {
        this.from = from;
        this.gateway = gateway;
    }

    /** Routes {@code from}'s connections to each of {@code servers} through a proxy of its own, undelayed. */
    static SlowLink open(Network net, Host from, List<InetSocketAddress> servers) throws IOException {
        SlowLink link = new SlowLink(from, net.gateway());
        try {
            for (InetSocketAddress server : servers) {
                DelayProxy proxy = new DelayProxy(new InetSocketAddress(net.gateway(), 0), server);
                link.proxies.add(proxy);
                List<String> rule = List.of(
                        "-t",
                        "nat",
                        "OUTPUT",
                        "-p",
                        "tcp",
                        "-d",
                        server.getHostString(),
                        "--dport",
                        String.valueOf(server.getPort()),
                        "-j",
                        "DNAT",
                        "--to-destination",
                        net.gateway() + ":" + proxy.port());
                link.iptables("-A", rule);
                link.natRules.add(rule);
            }
            return link;
        } catch (IOException | RuntimeException e) {
            link.close();
            throw e;
        }
    }

    /**
     * Delays every chunk each way by {@code mean} ± {@code jitter} (uniform) and drops {@code lossPercent} of the
     * packets each way (iptables {@code statistic}), as {@code tc qdisc netem delay 100ms 50ms loss 5%} would on
     * this path.
     */
    void impair(Duration mean, Duration jitter, double lossPercent) throws IOException {
        clear();
        proxies.forEach(p -> p.delay(mean, jitter));
        if (lossPercent > 0) {
            String ports = proxies.stream().map(p -> String.valueOf(p.port())).collect(Collectors.joining(","));
            String probability = String.valueOf(lossPercent / 100);
            lossRules.add(lossRule("OUTPUT", "-d", "--dports", ports, probability)); // to the proxies
            lossRules.add(lossRule("INPUT", "-s", "--sports", ports, probability)); // from them
            for (List<String> rule : lossRules) {
                iptables("-A", rule);
            }
        }
    }

    /** An iptables rule dropping {@code probability} of the TCP packets between here and the proxies' ports. */
    private List<String> lossRule(String chain, String address, String portMatch, String ports, String probability) {
        return List.of(
                chain,
                "-p",
                "tcp",
                address,
                gateway,
                "-m",
                "multiport",
                portMatch,
                ports,
                "-m",
                "statistic",
                "--mode",
                "random",
                "--probability",
                probability,
                "-j",
                "DROP");
    }

    /** Back to a fast, lossless path ({@link Network#healAll} may have flushed the loss rules already). */
    void clear() throws IOException {
        proxies.forEach(p -> p.delay(Duration.ZERO, Duration.ZERO));
        for (List<String> rule : lossRules) {
            if (present(rule)) {
                iptables("-D", rule);
            }
        }
        lossRules.clear();
    }

    /** Removes the path: the host's new connections go straight to the servers again. */
    @Override
    public void close() throws IOException {
        try {
            clear();
            for (List<String> rule : natRules) {
                iptables("-D", rule);
            }
            natRules.clear();
        } finally {
            proxies.forEach(DelayProxy::close);
            proxies.clear();
        }
    }

    private boolean present(List<String> rule) throws IOException {
        return command("-C", rule) == 0;
    }

    private void iptables(String op, List<String> rule) throws IOException {
        if (command(op, rule) != 0) {
            throw new IllegalStateException(
                    "iptables " + op + " " + String.join(" ", rule) + " failed on " + from.name());
        }
    }

    /** {@code iptables -w [-t table] op chain rest...} on the host, with {@code rule} as {@code [-t table] chain rest...}. */
    private int command(String op, List<String> rule) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("iptables", "-w"));
        List<String> rest = rule;
        if (rule.get(0).equals("-t")) {
            cmd.addAll(rule.subList(0, 2));
            rest = rule.subList(2, rule.size());
        }
        cmd.add(op);
        cmd.addAll(rest);
        Process p =
                new ProcessBuilder(from.command(cmd)).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes(); // its messages: the exit status says all this needs
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
        return p.exitValue();
    }
}
