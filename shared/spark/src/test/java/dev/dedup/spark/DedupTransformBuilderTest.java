package dev.dedup.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The settings a transform refuses, each naming itself; no Spark session. */
class DedupTransformBuilderTest {

    private static String refusal(Runnable r) {
        RuntimeException e = assertThrows(RuntimeException.class, r::run);
        return e.getMessage();
    }

    @Test
    void aTransformWithoutAnId_isRefusedWithWhereToSayIt() {
        String m = refusal(() -> DedupTransform.builder("clicks").build());
        assertTrue(m.contains("idFromHeader") && m.contains("never the record key"), m);
    }

    @Test
    void badSettings_areRefusedNamingTheSetting() {
        assertTrue(refusal(() -> DedupTransform.builder("")).startsWith("namespace:"));
        assertTrue(refusal(() -> DedupTransform.builder("x".repeat(65))).startsWith("namespace:"));
        assertTrue(refusal(() -> DedupTransform.builder("ns").chunk(0)).startsWith("chunk:"));
        assertTrue(refusal(() -> DedupTransform.builder("ns").patience(Duration.ofSeconds(-1)))
                .startsWith("patience:"));
        assertTrue(refusal(() -> DedupTransform.builder("ns").idFromHeader("")).startsWith("idFromHeader:"));
        assertTrue(refusal(() -> DedupTransform.builder("ns").verdictColumn("")).startsWith("verdictColumn:"));
        assertTrue(refusal(() -> DedupTransform.builder("ns").agents(List.of(URI.create("tcp://h:1"))))
                .startsWith("agents:"));
    }

    @Test
    void countsBeforeAnyDataset_sayWhy() {
        DedupTransform t =
                DedupTransform.builder("ns").idFromHeader("message-id").build();
        assertTrue(refusal(t::counts).contains("no Dataset was transformed yet"));
    }

    @Test
    void theLibraryIsJava11Bytecode() throws Exception {
        for (Class<?> c : List.of(DedupTransform.class, ClaimTask.class, RowReader.class, VerdictCounts.class)) {
            try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
                DataInputStream data = new DataInputStream(in);
                data.readInt(); // magic
                data.readUnsignedShort(); // minor
                assertEquals(55, data.readUnsignedShort(), c + " runs on Java 11 executors");
            }
        }
    }
}
