package dev.dedup.client;

import dev.dedup.wire.Verdict;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Reads the agent's answers: verdict bytes, release bytes, and error bodies. */
final class Responses {

    private static final Verdict[] VERDICTS = Verdict.values();
    private static final int MAX_DETAIL = 1_000;

    private Responses() {}

    static List<Verdict> verdicts(HttpResponse<byte[]> response, int items) throws DedupException {
        byte[] body = ok(response, items);
        Verdict[] verdicts = new Verdict[items];
        for (int i = 0; i < items; i++) {
            int code = body[i];
            if (code < 0 || code >= VERDICTS.length) {
                throw invalid(response, "byte " + i + " is " + code + ", not a verdict (0 new, 1 retry, 2 duplicate)");
            }
            verdicts[i] = Verdict.ofCode(body[i]);
        }
        return Collections.unmodifiableList(Arrays.asList(verdicts));
    }

    static boolean[] released(HttpResponse<byte[]> response, int items) throws DedupException {
        byte[] body = ok(response, items);
        boolean[] released = new boolean[items];
        for (int i = 0; i < items; i++) {
            if (body[i] != 0 && body[i] != 1) {
                throw invalid(response, "byte " + i + " is " + body[i] + ", not 0 or 1");
            }
            released[i] = body[i] == 1;
        }
        return released;
    }

    /** The body of a 200 with one byte per item; otherwise the error the answer carries. */
    private static byte[] ok(HttpResponse<byte[]> response, int items) throws DedupException {
        if (response.statusCode() != 200) {
            throw error(response);
        }
        byte[] body = response.body() == null ? new byte[0] : response.body();
        if (body.length != items) {
            throw invalid(response, body.length + " bytes for " + items + " items");
        }
        return body;
    }

    private static DedupException invalid(HttpResponse<byte[]> response, String what) {
        return new DedupException(response.statusCode(), DedupException.INVALID_RESPONSE, what, -1);
    }

    /** Maps a non-200 answer: {@code {"error": "...", "message": "..."}} and {@code Retry-After}. */
    static DedupException error(HttpResponse<byte[]> response) {
        int status = response.statusCode();
        byte[] body = response.body() == null ? new byte[0] : response.body();
        String error = null;
        String message = null;
        try {
            if (JsonReader.read(body) instanceof Map<?, ?> fields) {
                error = fields.get("error") instanceof String s ? s : null;
                message = fields.get("message") instanceof String s ? s : null;
            }
        } catch (JsonReader.MalformedJsonException e) {
            // Not the agent's JSON (a proxy's page, say): keep the start of the body as the message.
        }
        if (error == null || error.isEmpty()) {
            error = "http_" + status;
            if (message == null) {
                message = new String(body, 0, Math.min(body.length, MAX_DETAIL), StandardCharsets.UTF_8).strip();
            }
        }
        return new DedupException(status, error, message, retryAfterSeconds(response));
    }

    /** {@code Retry-After} as delta-seconds or an HTTP-date; -1 when absent or unreadable. */
    static long retryAfterSeconds(HttpResponse<?> response) {
        String value =
                response.headers().firstValue("Retry-After").map(String::strip).orElse(null);
        if (value == null || value.isEmpty()) {
            return -1;
        }
        try {
            long seconds = Long.parseLong(value);
            return seconds < 0 ? -1 : seconds;
        } catch (NumberFormatException e) {
            try {
                ZonedDateTime at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME);
                return Math.max(
                        0, Duration.between(ZonedDateTime.now(at.getZone()), at).toSeconds());
            } catch (DateTimeParseException notADate) {
                return -1;
            }
        }
    }
}
