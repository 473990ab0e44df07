package dev.dedup.loadtest;

import java.io.PrintStream;

/**
 * {@code java -jar dedup-loadtest.jar [options]}; {@code --help} lists them. Exit status: 0 every verdict
 * as expected, 3 a false drop or a missed duplicate, 1 more failed requests than {@code --max-errors} (or the
 * run could not proceed), 2 bad arguments.
 */
public final class Main {

    private Main() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** The whole command, minus {@code System.exit}: returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (CommandLine.wantsHelp(args)) {
            out.print(CommandLine.USAGE);
            return LoadRun.EXIT_OK;
        }
        LoadOptions options;
        try {
            options = CommandLine.parse(args);
        } catch (UsageException e) {
            err.println("dedup-loadtest: " + e.getMessage());
            return LoadRun.EXIT_USAGE;
        }
        try {
            LoadRun run = new LoadRun(options, err);
            LoadRun.Outcome outcome = run.execute();
            run.report(outcome, out);
            return outcome.exitStatus();
        } catch (RuntimeException e) {
            err.println("dedup-loadtest: " + e.getMessage());
            return LoadRun.EXIT_ERRORS;
        }
    }
}
