package dev.dedup.agent.testing;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a test runs a server process: this machine's loopback, or a network namespace with an address of its
 * own on a bridge ({@link Network}), entered with {@code ip netns exec}, which executes the program in place (the
 * process the test holds is the server itself, stopped by its PID).
 *
 * @param name     the host's name in messages (the namespace's name)
 * @param address  the address its servers bind and clients connect to
 * @param launcher the words put before a command to run it there; empty on loopback
 */
public record Host(String name, String address, List<String> launcher) {

    /** The machine's own loopback, as every test but the network-fault ones uses it. */
    public static final Host LOOPBACK = new Host("loopback", "127.0.0.1", List.of());

    public Host {
        launcher = List.copyOf(launcher);
    }

    public boolean isLoopback() {
        return launcher.isEmpty();
    }

    /** {@code command} as run on this host. */
    public List<String> command(List<String> command) {
        List<String> all = new ArrayList<>(launcher);
        all.addAll(command);
        return all;
    }
}
