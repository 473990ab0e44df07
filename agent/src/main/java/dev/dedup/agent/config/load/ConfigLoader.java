package dev.dedup.agent.config.load;

import dev.dedup.agent.config.AgentOptions;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.RawValue;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;

/**
 * Builds {@link AgentOptions} from flags, {@code DEDUP_*} environment variables, a properties file and
 * defaults, in that order of precedence. Every setting has one name: {@code --max-batch} on the command
 * line, {@code DEDUP_MAX_BATCH} in the environment, {@code max-batch} in the file. Windows of single
 * namespaces are {@code namespace.<ns>.window=48h} in the file, {@code --namespace-window ns=48h}
 * (repeatable) or {@code DEDUP_NAMESPACE_WINDOWS=ns=48h,other=1h}; namespaces that file claims by event
 * time likewise {@code namespace.<ns>.event-rate=33334}, {@code --namespace-event-rate ns=33334} or
 * {@code DEDUP_NAMESPACE_EVENT_RATES}; and window modes {@code namespace.<ns>.window-mode=sliding},
 * {@code --namespace-window-mode ns=sliding} or {@code DEDUP_NAMESPACE_WINDOW_MODES}.
 *
 * <p>Unknown settings are errors, so that a typo does not silently fall back to a default; the one exception is
 * the clients' {@code DEDUP_URL} ({@link Settings#CLIENT_VARIABLES}), which a pod's shared environment gives the
 * agent as well. The settings themselves, and how each value enters the options, are declared in {@link Settings}.
 */
public final class ConfigLoader {

    /** Each key given, its value and where it was given, the later source replacing the earlier. */
    private final Map<String, RawValue> values = new LinkedHashMap<>();

    private ConfigLoader() {}

    /** Loads the options; {@code args} are the command-line arguments (without {@code --help}). */
    public static AgentOptions load(List<String> args, Map<String, String> env) {
        ConfigLoader loader = new ConfigLoader();
        Map<String, String> flags = loader.parseFlags(args);
        String file = flags.containsKey("config") ? flags.get("config") : env.get("DEDUP_CONFIG");
        if (file != null) {
            loader.readFile(Path.of(file));
        }
        env.forEach((name, value) -> {
            if (name.startsWith("DEDUP_")
                    && !name.equals("DEDUP_CONFIG")
                    && !Settings.CLIENT_VARIABLES.contains(name)) {
                loader.putEnv(name, value);
            }
        });
        flags.forEach((key, value) -> {
            Setting setting = Settings.named(key);
            if (setting.perNamespace()) {
                loader.putNamespaceList(setting, value, "--" + key);
            } else if (!setting.isConfigFile()) {
                loader.put(key, value, "--" + key);
            }
        });
        return loader.build();
    }

    private Map<String, String> parseFlags(List<String> args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new ConfigException("'" + arg + "': expected a setting such as --port 7070 (see --help)");
            }
            String name = arg.substring(2);
            String value = null;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            }
            Setting setting = Settings.named(name);
            if (setting == null) {
                throw new ConfigException("--" + name + ": unknown setting (see --help)");
            }
            if (value == null) {
                if (setting.flagAlone()
                        && (i + 1 == args.size() || args.get(i + 1).startsWith("--"))) {
                    value = "true";
                } else if (i + 1 < args.size()) {
                    value = args.get(++i);
                } else {
                    throw new ConfigException("--" + name + ": needs a value");
                }
            }
            if (setting.perNamespace()) {
                String earlier = flags.get(name);
                flags.put(name, earlier == null ? value : earlier + "," + value);
            } else {
                flags.put(name, value);
            }
        }
        return flags;
    }

    private void readFile(Path path) {
        Properties props = new Properties();
        try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            props.load(r);
        } catch (IOException e) {
            throw new ConfigException("config: cannot read " + path + ": " + e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config: " + path + " is not a properties file: " + e.getMessage());
        }
        for (String key : new TreeSet<>(props.stringPropertyNames())) {
            String value = props.getProperty(key).trim();
            String origin = key + " (in " + path + ")";
            Setting setting = Settings.named(key);
            if (Settings.byNamespaceKey(key) != null
                    || (setting != null && !setting.isConfigFile() && !setting.perNamespace())) {
                put(key, value, origin);
            } else {
                throw new ConfigException(origin + ": unknown setting");
            }
        }
    }

    private void putEnv(String name, String value) {
        Setting setting = Settings.byEnv(name);
        if (setting == null) {
            throw new ConfigException(name + ": unknown setting (see --help for the DEDUP_* variables)");
        }
        if (setting.perNamespace()) {
            putNamespaceList(setting, value, name);
        } else {
            put(setting.name(), value, name);
        }
    }

    private void putNamespaceList(Setting setting, String list, String origin) {
        for (String entry : list.split(",")) {
            int eq = entry.indexOf('=');
            if (eq <= 0 || entry.substring(0, eq).isBlank()) {
                throw new ConfigException(origin + ": '" + entry + "' is not " + setting.entryForm());
            }
            put(
                    Settings.NAMESPACE_PREFIX + entry.substring(0, eq).trim() + setting.fileSuffix(),
                    entry.substring(eq + 1).trim(),
                    origin);
        }
    }

    private void put(String key, String value, String origin) {
        values.put(key, new RawValue(origin, value.trim()));
    }

    private AgentOptions build() {
        Draft draft = new Draft();
        values.forEach((key, value) -> {
            Setting perNamespace = Settings.byNamespaceKey(key);
            if (perNamespace != null) {
                perNamespace.apply(draft, Settings.namespaceOf(key, perNamespace), value);
            } else {
                Settings.named(key).apply(draft, value);
            }
        });
        return draft.build();
    }
}
