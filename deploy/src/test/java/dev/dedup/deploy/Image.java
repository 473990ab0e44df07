package dev.dedup.deploy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What deploy/Dockerfile gives a container that names no command: its ENTRYPOINT and ENV. */
final class Image {

    private Image() {}

    static List<String> entrypoint() {
        for (String line : Tools.read(Tools.DEPLOY.resolve("Dockerfile")).split("\n")) {
            if (line.startsWith("ENTRYPOINT ")) {
                try {
                    String[] words = new ObjectMapper().readValue(line.substring(11), String[].class);
                    return new ArrayList<>(List.of(words));
                } catch (IOException e) {
                    throw new UncheckedIOException("ENTRYPOINT must be the exec (JSON) form: " + line, e);
                }
            }
        }
        throw new AssertionError("no ENTRYPOINT in deploy/Dockerfile");
    }

    static Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        for (String line : Tools.read(Tools.DEPLOY.resolve("Dockerfile")).split("\n")) {
            if (line.startsWith("ENV ")) {
                for (String kv : line.substring(4).trim().split("\\s+")) {
                    int eq = kv.indexOf('=');
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        }
        return env;
    }
}
