package dev.dedup.loadtest.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

class VerdictDecoderTest {

    @Test
    void json_readsVerdictsInOrder() {
        Buffer body = Buffer.buffer("{\"verdicts\": [\"new\", \"retry\",\"duplicate\" ]}");
        assertArrayEquals(new byte[] {0, 1, 2}, VerdictDecoder.json(body, 3));
        assertArrayEquals(new byte[0], VerdictDecoder.json(Buffer.buffer("{\"verdicts\":[]}"), 0));
    }

    @Test
    void json_wrongCountOrUnknownVerdict_isABadResponse() {
        RequestFailure f = assertThrows(
                RequestFailure.class, () -> VerdictDecoder.json(Buffer.buffer("{\"verdicts\":[\"new\"]}"), 2));
        assertEquals("bad_response", f.reason());
        assertThrows(RequestFailure.class, () -> VerdictDecoder.json(Buffer.buffer("{\"verdicts\":[\"maybe\"]}"), 1));
        assertThrows(RequestFailure.class, () -> VerdictDecoder.json(Buffer.buffer("{\"verdicts\":[\"new\""), 1));
        assertThrows(RequestFailure.class, () -> VerdictDecoder.json(Buffer.buffer("{\"error\":\"x\"}"), 1));
    }

    @Test
    void binary_oneByteEachInRange() {
        assertArrayEquals(new byte[] {2, 0}, VerdictDecoder.binary(Buffer.buffer(new byte[] {2, 0}), 2));
        assertThrows(RequestFailure.class, () -> VerdictDecoder.binary(Buffer.buffer(new byte[] {2}), 2));
        assertThrows(RequestFailure.class, () -> VerdictDecoder.binary(Buffer.buffer(new byte[] {3}), 1));
    }
}
