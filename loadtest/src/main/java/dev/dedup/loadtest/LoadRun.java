package dev.dedup.loadtest;

import dev.dedup.loadtest.driver.ErrorBudget;
import dev.dedup.loadtest.driver.HttpTransport;
import dev.dedup.loadtest.driver.Progress;
import dev.dedup.loadtest.driver.ProgressPrinter;
import dev.dedup.loadtest.driver.ScenarioRunner;
import dev.dedup.loadtest.report.JsonLine;
import dev.dedup.loadtest.report.ResultTable;
import dev.dedup.loadtest.report.ScenarioResult;
import dev.dedup.loadtest.workload.IdSpace;
import dev.dedup.loadtest.workload.Ledger;
import dev.dedup.loadtest.workload.Owners;
import dev.dedup.loadtest.workload.Scenario;
import dev.dedup.loadtest.workload.Workload;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One invocation of the generator: the optional warm-up, then each scenario in turn over the same ids —
 * prepare its bodies, send them, record the result — and finally the table (and JSON lines).
 */
public final class LoadRun {

    /** Exit statuses of the command. */
    public static final int EXIT_OK = 0;
    public static final int EXIT_ERRORS = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_WRONG_VERDICTS = 3;

    /**
     * What a run measured.
     *
     * @param results  one per measured scenario that ran
     * @param warmup   the warm-up passes (not in the table; their verdicts still count for the exit status)
     * @param budget   failed requests of the whole run against {@code --max-errors}
     */
    public record Outcome(List<ScenarioResult> results, List<ScenarioResult> warmup, ErrorBudget budget) {

        /** 3 when any answer lost data or let a duplicate through, else 1 when the error budget ran out, else 0. */
        public int exitStatus() {
            boolean unsafe = results.stream().anyMatch(r -> !r.tally().safe())
                    || warmup.stream().anyMatch(r -> !r.tally().safe());
            if (unsafe) {
                return EXIT_WRONG_VERDICTS;
            }
            return budget.exceeded() ? EXIT_ERRORS : EXIT_OK;
        }
    }

    private final LoadOptions options;
    private final PrintStream err;

    public LoadRun(LoadOptions options, PrintStream err) {
        this.options = options;
        this.err = err;
    }

    /** Runs everything; blocks until done. Call from a plain thread, never a Vert.x event loop. */
    public Outcome execute() {
        err.println(String.format(Locale.ROOT,
                "dedup-loadtest: run-id %s, seed %d: %s over %,d ids (+%,d warm-up), batch %,d, %d workers, %s,"
                        + " ns %s, %s", options.runId(), options.seed(), options.scenarioNames(), options.ids(),
                options.warmup(), options.batch(), options.workers(), options.format().cliName(),
                options.namespace(), options.targets()));
        int eventLoops = Math.max(1, Math.min(options.workers(), Runtime.getRuntime().availableProcessors()));
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
        Progress progress = new Progress();
        ErrorBudget budget = new ErrorBudget(options.maxErrors());
        ScenarioRunner runner = new ScenarioRunner(vertx, options.workers(), budget, progress);
        List<ScenarioResult> warmup = new ArrayList<>();
        List<ScenarioResult> results = new ArrayList<>();
        try (ProgressPrinter printer = options.quiet() ? null : new ProgressPrinter(progress, err);
             HttpTransport transport = new HttpTransport(vertx, options.targets(), options.workers(),
                     options.format(), options.timeout())) {
            if (options.warmup() > 0) {
                warmUp(runner, transport, progress, budget, warmup);
            }
            IdSpace ids = new IdSpace(options.runId(), options.seed(), IdSpace.MEASURED);
            Ledger ledger = options.runIdGiven() && options.scenarios().get(0) != Scenario.COLD
                    ? Ledger.claimedEarlier(options.ids(), Owners.ORIGINAL)
                    : new Ledger(options.ids());
            for (Scenario scenario : options.scenarios()) {
                if (budget.exceeded()) {
                    break;
                }
                results.add(runOne(scenario.cliName(), scenario, ids, ledger, runner, transport, progress));
            }
        } finally {
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                err.println("dedup-loadtest: Vert.x did not close cleanly: " + e);
            }
        }
        Outcome outcome = new Outcome(results, warmup, budget);
        for (ScenarioResult w : warmup) {
            if (!w.tally().safe()) {
                err.println("dedup-loadtest: warm-up " + w.scenario() + ": " + w.tally().falseDrops()
                        + " false drops, " + w.tally().missedDuplicates() + " missed duplicates");
            }
        }
        if (budget.exceeded()) {
            err.println("dedup-loadtest: " + budget.errors() + " failed requests, more than --max-errors "
                    + budget.maxErrors() + "; stopped");
        }
        return outcome;
    }

    /** Prints the table, and the JSON lines when asked for. */
    public void report(Outcome outcome, PrintStream out) {
        out.print(ResultTable.render(outcome.results()));
        if (options.json()) {
            String target = String.join(",", options.targets().stream().map(Object::toString).toList());
            for (ScenarioResult r : outcome.results()) {
                out.println(JsonLine.render(r, target, options.runId()));
            }
        }
        out.flush();
    }

    /**
     * The same scenarios over ids of their own (a fresh random stream every run, so the warm-up always
     * starts with unclaimed ids), starting with cold so that retry and duplicate have claims to hit.
     */
    private void warmUp(ScenarioRunner runner, HttpTransport transport, Progress progress, ErrorBudget budget,
                       List<ScenarioResult> into) {
        IdSpace ids = new IdSpace(options.runId() + "/warmup/" + Long.toHexString(new SecureRandom().nextLong()),
                options.seed(), IdSpace.WARMUP);
        Ledger ledger = new Ledger(options.warmup());
        List<Scenario> passes = new ArrayList<>(options.scenarios());
        if (passes.get(0) != Scenario.COLD) {
            passes.add(0, Scenario.COLD);
        }
        for (Scenario scenario : passes) {
            if (budget.exceeded()) {
                return;
            }
            into.add(runOne("warmup-" + scenario.cliName(), scenario, ids, ledger, runner, transport, progress));
        }
    }

    private ScenarioResult runOne(String name, Scenario scenario, IdSpace ids, Ledger ledger, ScenarioRunner runner,
                                  HttpTransport transport, Progress progress) {
        progress.phase("preparing " + name, 0);
        Workload workload = Workload.prepare(name, scenario, ids, ledger, options.namespace(), options.format(),
                options.batch());
        // Collect the previous scenario's bodies now rather than in the middle of this one's timed part.
        System.gc();
        return runner.run(workload, transport, options.batch());
    }
}
