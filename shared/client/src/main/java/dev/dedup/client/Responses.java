package dev.dedup.client;

import dev.dedup.wire.SequenceRange;
import dev.dedup.wire.Verdict;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
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

    /** {@code {"done": [[{"from": "..", "to": ".."}, ...], ...]}}, one list per asked range. */
    static List<List<SequenceRange>> done(HttpResponse<byte[]> response, int ranges) throws DedupException {
        Object done = field(response, "done");
        if (!(done instanceof List<?>) || ((List<?>) done).size() != ranges) {
            throw invalid(response, "\"done\" is not a list of " + ranges + " lists");
        }
        List<List<SequenceRange>> out = new ArrayList<>(ranges);
        for (Object parts : (List<?>) done) {
            if (!(parts instanceof List<?>)) {
                throw invalid(response, "\"done\" holds " + parts + ", not a list of ranges");
            }
            List<?> list = (List<?>) parts;
            List<SequenceRange> ranged = new ArrayList<>(list.size());
            for (Object part : list) {
                Object from = part instanceof Map<?, ?> ? ((Map<?, ?>) part).get("from") : null;
                Object to = part instanceof Map<?, ?> ? ((Map<?, ?>) part).get("to") : null;
                if (!(from instanceof String && to instanceof String)) {
                    throw invalid(response, "\"done\" holds " + part + ", not a range {\"from\", \"to\"}");
                }
                try {
                    ranged.add(SequenceRange.of((String) from, (String) to));
                } catch (IllegalArgumentException e) {
                    throw invalid(response, "\"done\" holds an invalid range: " + e.getMessage());
                }
            }
            out.add(Collections.unmodifiableList(ranged));
        }
        return Collections.unmodifiableList(out);
    }

    /** {@code {"committed": [true, ...]}}, one per range. */
    static void committed(HttpResponse<byte[]> response, int ranges) throws DedupException {
        Object committed = field(response, "committed");
        if (!(committed instanceof List<?>)
                || ((List<?>) committed).size() != ranges
                || ((List<?>) committed).contains(Boolean.FALSE)) {
            throw invalid(response, "\"committed\" is not a list of " + ranges + " true");
        }
    }

    /** A field of a 200's JSON object; otherwise the error the answer carries. */
    private static Object field(HttpResponse<byte[]> response, String name) throws DedupException {
        if (response.statusCode() != 200) {
            throw error(response);
        }
        try {
            Object value = JsonReader.read(response.body() == null ? new byte[0] : response.body());
            if (value instanceof Map<?, ?>) {
                return ((Map<?, ?>) value).get(name);
            }
            throw invalid(response, "not a JSON object");
        } catch (JsonReader.MalformedJsonException e) {
            throw invalid(response, "not JSON: " + e.getMessage());
        }
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
            Object value = JsonReader.read(body);
            if (value instanceof Map<?, ?>) {
                error = string(((Map<?, ?>) value).get("error"));
                message = string(((Map<?, ?>) value).get("message"));
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
        if (status == 401
                && response.request().headers().firstValue("Authorization").isEmpty()) {
            message = (message == null || message.isEmpty() ? "" : message + "; ")
                    + "this client sent no token: give it the agent's --token (DEDUP_TOKEN)";
        }
        return new DedupException(status, error, message, retryAfterSeconds(response));
    }

    private static String string(Object value) {
        return value instanceof String ? (String) value : null;
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
