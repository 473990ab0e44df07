package dev.dedup.loadtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dedup.loadtest.report.ScenarioResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The generator against stand-ins for a broken agent: its verdict checks and error accounting. */
class WrongAnswersTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void agentAnsweringDuplicateToEverything_isFalseDropsAndExitThree() throws Exception {
        // Binary batch of "loadtest": 1 + 8 bytes of namespace, then items of 2 + 36 + 2 + owner bytes.
        int port = serve(
                body -> {
                    byte[] verdicts = new byte[countItems(body)];
                    java.util.Arrays.fill(verdicts, (byte) 2);
                    return Buffer.buffer(verdicts);
                },
                200,
                "application/x-dedup-verdicts");
        LoadOptions options = CommandLine.parse(
                "--target", "http://127.0.0.1:" + port, "--ids", "2000", "--scenario", "all", "--quiet");
        LoadRun.Outcome outcome = new LoadRun(options, silent()).execute();
        ScenarioResult cold = outcome.results().get(0);
        assertEquals(2000, cold.tally().falseDrops());
        assertEquals(0, outcome.results().get(2).tally().missedDuplicates());
        assertEquals(2000, outcome.results().get(1).tally().unexpected(), "duplicate where retry was expected");
        assertEquals(LoadRun.EXIT_WRONG_VERDICTS, outcome.exitStatus());
    }

    @Test
    void agentAnswering503_countsStatusesAndStopsPastMaxErrors() throws Exception {
        int port = serve(
                body -> Buffer.buffer("{\"error\":\"unavailable\",\"message\":\"store down\"}"),
                503,
                "application/json");
        LoadOptions options = CommandLine.parse(
                "--target",
                "http://127.0.0.1:" + port,
                "--ids",
                "20000",
                "--batch",
                "100",
                "--workers",
                "2",
                "--max-errors",
                "5",
                "--quiet");
        LoadRun.Outcome outcome = new LoadRun(options, silent()).execute();
        assertEquals(1, outcome.results().size(), "no scenario starts once the budget is spent");
        ScenarioResult cold = outcome.results().get(0);
        assertTrue(cold.aborted());
        long errors = cold.errors().get("503");
        assertTrue(errors > 5 && errors <= 7, "stopped soon after the budget: " + errors);
        assertEquals(Map.of("503", errors), cold.errors());
        assertEquals(LoadRun.EXIT_ERRORS, outcome.exitStatus());
    }

    @Test
    void unreachableAgent_isAnIoErrorAndExitOne() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = Main.run(
                new String[] {"--target", "http://127.0.0.1:1", "--ids", "10", "--quiet"},
                new PrintStream(out, true, StandardCharsets.UTF_8),
                silent());
        assertEquals(LoadRun.EXIT_ERRORS, status);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("errors by status: {io:"), out.toString());
    }

    private int serve(Function<Buffer, Buffer> answer, int status, String type) throws Exception {
        HttpServer server = vertx.createHttpServer()
                .requestHandler(req -> req.body()
                        .onSuccess(body -> req.response()
                                .setStatusCode(status)
                                .putHeader("Content-Type", type)
                                .end(answer.apply(body))));
        return server.listen(0, "127.0.0.1")
                .toCompletionStage()
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS)
                .actualPort();
    }

    private static int countItems(Buffer body) {
        int pos = 1 + body.getUnsignedByte(0);
        int items = 0;
        while (pos < body.length()) {
            pos += 2 + body.getUnsignedShort(pos);
            pos += 2 + body.getUnsignedShort(pos);
            items++;
        }
        return items;
    }

    private static PrintStream silent() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
