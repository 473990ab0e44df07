package dev.dedup.loadtest;

import dev.dedup.loadtest.direct.TapjoyEncoding;
import dev.dedup.loadtest.direct.TapjoyTransport;
import dev.dedup.loadtest.driver.ErrorBudget;
import dev.dedup.loadtest.driver.HttpTransport;
import dev.dedup.loadtest.driver.ProcessCpu;
import dev.dedup.loadtest.driver.Progress;
import dev.dedup.loadtest.driver.ProgressPrinter;
import dev.dedup.loadtest.driver.Sampler;
import dev.dedup.loadtest.driver.ScenarioRunner;
import dev.dedup.loadtest.driver.Transport;
import dev.dedup.loadtest.report.HtmlReport;
import dev.dedup.loadtest.report.JsonLine;
import dev.dedup.loadtest.report.ResultTable;
import dev.dedup.loadtest.report.ScenarioResult;
import dev.dedup.loadtest.workload.BatchEncoding;
import dev.dedup.loadtest.workload.EventTimeEncoding;
import dev.dedup.loadtest.workload.IdSpace;
import dev.dedup.loadtest.workload.Ledger;
import dev.dedup.loadtest.workload.Owners;
import dev.dedup.loadtest.workload.Scenario;
import dev.dedup.loadtest.workload.SendPlan;
import dev.dedup.loadtest.workload.Workload;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
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
        err.println(String.format(
                Locale.ROOT,
                "dedup-loadtest: run-id %s, seed %d: %s over %,d ids (+%,d warm-up), batch %,d, %d workers, %s,"
                        + " ns %s, %s%s",
                options.runId(),
                options.seed(),
                options.scenarioNames(),
                options.ids(),
                options.warmup(),
                options.batch(),
                options.workers(),
                encoding().cliName(),
                options.namespace(),
                target(),
                options.rate() > 0 ? String.format(Locale.ROOT, ", offered %,.0f ids/s", options.rate()) : ""));
        int eventLoops =
                Math.max(1, Math.min(options.workers(), Runtime.getRuntime().availableProcessors()));
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
        Progress progress = new Progress();
        ErrorBudget budget = new ErrorBudget(options.maxErrors());
        Sampler sampler = options.samples() == null ? null : new Sampler(options.samples(), options.sampleEvery());
        ScenarioRunner runner =
                new ScenarioRunner(vertx, options.workers(), budget, progress, options.resend(), sampler);
        List<ScenarioResult> warmup = new ArrayList<>();
        List<ScenarioResult> results = new ArrayList<>();
        try (ProgressPrinter printer = options.quiet() ? null : new ProgressPrinter(progress, err);
                Transport<?> transport = openTransport(vertx)) {
            if (options.warmup() > 0) {
                warmUp(runner, transport, progress, budget, warmup);
            }
            Pass measured = new Pass(
                    new IdSpace(options.runId(), options.seed(), IdSpace.MEASURED),
                    options.runIdGiven() && firstUniform() != Scenario.COLD
                            ? Ledger.claimedEarlier(options.ids(), Owners.ORIGINAL)
                            : new Ledger(options.ids()));
            Pass mixed =
                    new Pass(new IdSpace(options.runId(), options.seed(), IdSpace.MIXED), new Ledger(options.ids()));
            for (Scenario scenario : options.scenarios()) {
                if (budget.exceeded()) {
                    break;
                }
                Pass pass = scenario == Scenario.MIXED ? mixed : measured;
                results.add(runOne(scenario.cliName(), scenario, pass, runner, transport, progress, options.rate()));
            }
        } finally {
            if (sampler != null) {
                sampler.close();
            }
            try {
                vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                err.println("dedup-loadtest: Vert.x did not close cleanly: " + e);
            }
        }
        Outcome outcome = new Outcome(results, warmup, budget);
        for (ScenarioResult w : warmup) {
            if (!w.tally().safe()) {
                err.println("dedup-loadtest: warm-up " + w.scenario() + ": "
                        + w.tally().falseDrops() + " false drops, " + w.tally().missedDuplicates()
                        + " missed duplicates");
            }
        }
        if (budget.exceeded()) {
            err.println("dedup-loadtest: " + budget.errors() + " failed requests, more than --max-errors "
                    + budget.maxErrors() + "; stopped");
        }
        return outcome;
    }

    /** Prints the table, and the JSON lines when asked for; writes the HTML report when asked for. */
    public void report(Outcome outcome, PrintStream out) {
        out.print(ResultTable.render(outcome.results()));
        if (options.json()) {
            for (ScenarioResult r : outcome.results()) {
                out.println(JsonLine.render(r, target(), options.runId()));
            }
        }
        out.flush();
        if (options.report() != null) {
            try {
                HtmlReport.write(options.report(), outcome.results(), target(), options.runId());
                err.println("dedup-loadtest: report written to " + options.report());
            } catch (IOException e) {
                throw new UncheckedIOException("--report: cannot write " + options.report() + ": " + e.getMessage(), e);
            }
        }
    }

    /** What the run sends to, as the table and the JSON line name it. */
    private String target() {
        return options.isDirect()
                ? "direct " + String.join(",", options.direct())
                : String.join(
                        ",", options.targets().stream().map(Object::toString).toList());
    }

    private BatchEncoding encoding() {
        if (options.isDirect()) {
            return new TapjoyEncoding();
        }
        return options.eventEpoch() == 0
                ? options.format()
                : new EventTimeEncoding(options.format(), options.eventEpoch());
    }

    private Transport<?> openTransport(Vertx vertx) {
        return options.isDirect()
                ? new TapjoyTransport(options.direct(), options.timeout())
                : new HttpTransport(vertx, options.targets(), options.workers(), options.format(), options.timeout());
    }

    private Scenario firstUniform() {
        return options.scenarios().stream()
                .filter(s -> s != Scenario.MIXED)
                .findFirst()
                .orElse(Scenario.COLD);
    }

    /** The ids a pass sends and the ledger that knows what they were sent as before. */
    private record Pass(IdSpace ids, Ledger ledger) {}

    /**
     * The same scenarios over ids of their own (a fresh random stream every run, so the warm-up always
     * starts with unclaimed ids), starting with cold so that retry and duplicate have claims to hit.
     */
    private void warmUp(
            ScenarioRunner runner,
            Transport<?> transport,
            Progress progress,
            ErrorBudget budget,
            List<ScenarioResult> into) {
        String warmupRun = options.runId() + "/warmup/" + Long.toHexString(new SecureRandom().nextLong());
        Pass uniform = new Pass(new IdSpace(warmupRun, options.seed(), IdSpace.WARMUP), new Ledger(options.warmup()));
        Pass mixed =
                new Pass(new IdSpace(warmupRun, options.seed(), IdSpace.WARMUP_MIXED), new Ledger(options.warmup()));
        List<Scenario> passes = new ArrayList<>(options.scenarios());
        if (firstUniform() != Scenario.COLD && passes.stream().anyMatch(Scenario::repeatsCold)) {
            passes.add(0, Scenario.COLD);
        }
        for (Scenario scenario : passes) {
            if (budget.exceeded()) {
                return;
            }
            into.add(runOne(
                    "warmup-" + scenario.cliName(),
                    scenario,
                    scenario == Scenario.MIXED ? mixed : uniform,
                    runner,
                    transport,
                    progress,
                    0));
        }
    }

    private <B> ScenarioResult runOne(
            String name,
            Scenario scenario,
            Pass pass,
            ScenarioRunner runner,
            Transport<B> transport,
            Progress progress,
            double rate) {
        progress.phase("preparing " + name, 0);
        int ids = pass.ledger().size();
        SendPlan plan = scenario == Scenario.MIXED
                ? SendPlan.mixed(
                        ids,
                        options.mix().dupRate(),
                        options.mix().retryRate(),
                        options.batch(),
                        options.mix().spread(),
                        options.seed() ^ name.hashCode())
                : scenario.uniformPlan(ids);
        Workload workload = Workload.prepare(
                name, plan, pass.ids(), pass.ledger(), options.namespace(), encoding(), options.batch());
        // Collect the previous scenario's bodies now rather than in the middle of this one's timed part.
        System.gc();
        ProcessCpu redis = new ProcessCpu(options.redisPids());
        ProcessCpu agents = new ProcessCpu(options.agentPids());
        double redisBefore = redis.isEmpty() ? 0 : redis.seconds();
        double agentsBefore = agents.isEmpty() ? 0 : agents.seconds();
        ScenarioResult result = runner.run(workload, transport, options.batch(), rate);
        if (redis.isEmpty() && agents.isEmpty()) {
            return result;
        }
        double perId = 1e6 / Math.max(1, result.ids());
        return result.withCpu(
                redis.isEmpty() ? -1 : (redis.seconds() - redisBefore) * perId,
                agents.isEmpty() ? -1 : (agents.seconds() - agentsBefore) * perId);
    }
}
