package dev.dedup.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The JVM flags running-locally.md lists for Spark on Java 17 are the ones the examples' tests run Spark with. */
class DocsSparkFlagsTest {

    private static final Path ROOT = DocsCodeBlocksTest.ROOT;

    @Test
    void theDocsListTheFlagsTheTestsRunSparkWith() throws IOException {
        String pom = Files.readString(ROOT.resolve("shared/pom.xml"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("<spark.java17.flags>([^<]+)</spark.java17.flags>")
                .matcher(pom);
        if (!m.find()) {
            throw new AssertionError("shared/pom.xml has no spark.java17.flags");
        }
        List<String> used = List.of(m.group(1).strip().split("\\s+"));

        List<String> page = Files.readAllLines(ROOT.resolve("docs/running-locally.md"), StandardCharsets.UTF_8);
        int heading = page.indexOf("## Spark on Java 17 outside `spark-submit`");
        int start = page.subList(heading, page.size()).indexOf("```text") + heading + 1;
        List<String> listed = new ArrayList<>();
        for (int i = start; !page.get(i).strip().equals("```"); i++) {
            listed.add(page.get(i).strip());
        }
        assertEquals(used, listed, "docs/running-locally.md against spark.java17.flags in shared/pom.xml");
    }
}
