package dev.dedup.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class WireFormatTest {

    @Test
    void eachFormat_namesTheContractsMediaTypes() {
        assertEquals("application/x-dedup-batch", WireFormat.BINARY.requestType());
        assertEquals("application/x-dedup-verdicts", WireFormat.BINARY.responseType());
        assertEquals("application/json", WireFormat.JSON.requestType());
        assertEquals("application/json", WireFormat.JSON.responseType());
        assertEquals(List.of("binary", "json"), List.of(WireFormat.BINARY.label(), WireFormat.JSON.label()));
    }

    @Test
    void ofContentType_ignoresParametersCaseAndSpaces() {
        assertEquals(WireFormat.JSON, WireFormat.ofContentType("application/json"));
        assertEquals(WireFormat.JSON, WireFormat.ofContentType("APPLICATION/JSON; charset=utf-8"));
        assertEquals(WireFormat.BINARY, WireFormat.ofContentType(" application/x-dedup-batch ; v=2"));
        for (String other : new String[] {
            null,
            "",
            "text/plain",
            "application/x-dedup-verdicts",
            "application/jsonx",
            "application/octet-stream",
            ";application/json"
        }) {
            assertNull(WireFormat.ofContentType(other), other);
        }
    }

    @Test
    void encode_writesTheFormatsBody() {
        List<Item> items = List.of(new Item("a", "o"));
        assertArrayEquals(BatchEncoder.binary("t", items), WireFormat.BINARY.encode("t", items));
        assertArrayEquals(BatchEncoder.json("t", items), WireFormat.JSON.encode("t", items));
    }
}
