package dev.dedup.agent;

import dev.dedup.agent.check.SetupCheck;
import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.load.ConfigLoader;
import dev.dedup.agent.config.load.Settings;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.metrics.BuildInfo;
import dev.dedup.agent.plan.PlanCommand;
import dev.dedup.agent.store.IncompatibleDeploymentException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import sun.misc.Signal;

/**
 * {@code java -jar dedup-agent.jar [--setting value ...]}, or {@code java -jar dedup-agent.jar plan ...} to
 * plan the Redis a rate and a window need ({@link PlanCommand}), or {@code java -jar dedup-agent.jar self-test
 * [--setting value ...]} to check an agent of those settings end to end ({@link SetupCheck}), or {@code java -jar
 * dedup-agent.jar --version} to print {@code dedup-agent <version>}. Exits 2 with one line naming the setting when
 * the configuration is bad, 1 when the agent cannot start, and 0 after SIGTERM or SIGINT once requests in
 * flight are answered and the store is flushed.
 */
public final class Main {

    private Main() {}

    private static void startDrain(Runnable drainAndExit) {
        Thread t = new Thread(drainAndExit, "dedup-shutdown");
        t.setDaemon(false);
        t.start();
    }

    public static void main(String[] args) {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tFT%1$tT.%1$tLZ %4$s %3$s: %5$s%6$s%n");
        }
        // Lettuce records its connection events for Flight Recorder when the JDK has it, and Netty its buffer
        // allocations; nothing here reads them, and asking whether Flight Recorder is there starts JFR's
        // machinery: 150 ms at one core before the first connection to Redis. -D on the command line wins.
        for (String recorder : new String[] {"io.lettuce.core.jfr", "io.netty.jfr.enabled"}) {
            if (System.getProperty(recorder) == null) {
                System.setProperty(recorder, "false");
            }
        }
        List<String> argList = Arrays.asList(args);
        // Before anything reads a setting: the version is what a report of a bad start needs too.
        if (argList.contains("--version")) {
            System.out.println(BuildInfo.current().line());
            return;
        }
        if (!argList.isEmpty() && argList.get(0).equals("plan")) {
            System.exit(PlanCommand.run(argList.subList(1, argList.size()), System.out, System.err));
            return;
        }
        if (!argList.isEmpty() && argList.get(0).equals("self-test")) {
            int status = SetupCheck.run(argList.subList(1, argList.size()), System.getenv(), System.out, System.err);
            System.exit(status);
            return;
        }
        if (argList.contains("--help") || argList.contains("-h")) {
            System.out.print(Settings.help());
            return;
        }
        AgentOptions options;
        try {
            options = ConfigLoader.load(argList, System.getenv());
        } catch (ConfigException e) {
            System.err.println("dedup-agent: configuration error: " + e.getMessage());
            System.exit(2);
            return;
        }
        // Our own handlers, so that SIGTERM ends with exit code 0 after the drain rather than 143; installed before
        // the agent listens, so that a signal sent the moment it is ready finds them. A signal during the start
        // drains once the start is over (a start that fails exits by itself). The drain runs on a non-daemon
        // thread: the signal thread is a daemon, and once Vert.x has stopped no other thread would keep the JVM
        // alive until the store is flushed.
        CompletableFuture<Agent> started = new CompletableFuture<>();
        Runnable drainAndExit = () -> {
            Agent running;
            try {
                running = started.join();
            } catch (CompletionException | CancellationException startFailed) {
                return; // main exits with the start's status
            }
            running.close();
            System.err.println("dedup-agent: stopped");
            Runtime.getRuntime().halt(0);
        };
        Signal.handle(new Signal("TERM"), sig -> startDrain(drainAndExit));
        Signal.handle(new Signal("INT"), sig -> startDrain(drainAndExit));
        try {
            started.complete(Agent.start(options));
        } catch (ConfigException | IncompatibleDeploymentException e) { // e.g. the store records another shard list
            started.cancel(false);
            System.err.println("dedup-agent: configuration error: " + e.getMessage());
            System.exit(2);
        } catch (RuntimeException e) {
            started.cancel(false);
            System.err.println("dedup-agent: cannot start: " + e.getMessage());
            System.exit(1);
        }
    }
}
