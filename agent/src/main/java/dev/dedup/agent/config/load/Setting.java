package dev.dedup.agent.config.load;

import dev.dedup.agent.config.value.Bounds;
import dev.dedup.agent.config.value.RawValue;
import java.util.Locale;

/**
 * One setting of the agent, declared once in {@link Settings}: its name, what it does, its default as the
 * docs write it, and how a value enters the options. From it come the flag ({@code --max-batch}), the
 * environment variable ({@code DEDUP_MAX_BATCH}), the key in a {@code --config} file ({@code max-batch}),
 * the line of {@code --help} and the row of the configuration page's table.
 *
 * <p>A per-namespace setting ({@code --namespace-window clicks=48h}) is a list of {@code ns=value} entries
 * under a flag, a plural environment variable ({@code DEDUP_NAMESPACE_WINDOWS}) and one file key per
 * namespace ({@code namespace.clicks.window}).
 *
 * <p>A setting with {@link Bounds} parses its value with them and refuses one out of them, naming the setting
 * ({@code max-batch}, {@code namespace.clicks.event-rate}); its doc writes them where it says {@value #BOUNDS}.
 */
record Setting(
        String name,
        String defaultText,
        String doc,
        Bounds<?> bounds,
        boolean flagAlone,
        Setting.Apply apply,
        Setting.ApplyToNamespace applyToNamespace,
        String namespaceEnv,
        String fileSuffix,
        String entryForm) {

    /** How a plain setting's value enters the options being built. */
    @FunctionalInterface
    interface Apply {
        void apply(Draft draft, RawValue value);
    }

    /** How one {@code ns=value} entry of a per-namespace setting enters them. */
    @FunctionalInterface
    interface ApplyToNamespace {
        void apply(Draft draft, String namespace, RawValue value);
    }

    /** How a value read and checked by the setting's bounds enters the options. */
    @FunctionalInterface
    interface ApplyChecked<T> {
        void apply(Draft draft, T value);
    }

    /** How one {@code ns=value} entry, its value read and checked by the setting's bounds, enters them. */
    @FunctionalInterface
    interface ApplyCheckedToNamespace<T> {
        void apply(Draft draft, String namespace, T value);
    }

    /** Where a doc writes its setting's bounds. */
    static final String BOUNDS = "{bounds}";

    Setting {
        if ((bounds != null) != doc.contains(BOUNDS)) {
            throw new IllegalArgumentException(
                    name + ": a setting with bounds writes them in its doc as " + BOUNDS + ", and only such a setting");
        }
        if (bounds != null) {
            doc = doc.replace(BOUNDS, bounds.markdown());
        }
    }

    /**
     * A setting with one value.
     *
     * @param defaultText the default as the configuration page writes it: {@code `24h`} in backquotes when it is a
     *     value the setting accepts, else words ({@code none: the embedded store})
     * @param doc what it does, in Markdown; links are relative to {@code docs/}
     */
    static Setting of(String name, String defaultText, String doc, Apply apply) {
        return new Setting(name, defaultText, doc, null, false, apply, null, null, null, null);
    }

    /** A setting whose value is read and checked by {@code bounds}, which its doc writes at {@value #BOUNDS}. */
    static <T extends Comparable<? super T>> Setting of(
            String name, String defaultText, Bounds<T> bounds, String doc, ApplyChecked<T> apply) {
        return new Setting(
                name,
                defaultText,
                doc,
                bounds,
                false,
                (d, v) -> apply.apply(d, bounds.parse(name, v)),
                null,
                null,
                null,
                null);
    }

    /** A boolean setting: the flag alone means {@code true}. */
    static Setting flag(String name, String doc, Apply apply) {
        return new Setting(name, "`false`", doc, null, true, apply, null, null, null, null);
    }

    /**
     * A list of {@code ns=value} entries.
     *
     * @param env        its environment variable, comma-separated entries
     * @param fileSuffix the file key's end: {@code namespace.<ns><fileSuffix>}
     * @param entryForm  what one entry looks like, for error messages
     */
    static Setting perNamespace(
            String name,
            String env,
            String fileSuffix,
            String entryForm,
            String defaultText,
            String doc,
            ApplyToNamespace apply) {
        return new Setting(name, defaultText, doc, null, false, null, apply, env, fileSuffix, entryForm);
    }

    /**
     * A list of {@code ns=value} entries, each value read and checked by {@code bounds}: a value out of them is
     * refused naming the namespace's file key ({@code namespace.clicks.event-rate}).
     */
    static <T extends Comparable<? super T>> Setting perNamespace(
            String name,
            String env,
            String fileSuffix,
            String entryForm,
            String defaultText,
            Bounds<T> bounds,
            String doc,
            ApplyCheckedToNamespace<T> apply) {
        return new Setting(
                name,
                defaultText,
                doc,
                bounds,
                false,
                null,
                (d, ns, v) -> apply.apply(d, ns, bounds.parse(Settings.NAMESPACE_PREFIX + ns + fileSuffix, v)),
                env,
                fileSuffix,
                entryForm);
    }

    /** {@code --config}: read by the loader itself, and not from a file. */
    static Setting configFile(String doc) {
        return new Setting("config", "none", doc, null, false, null, null, null, null, null);
    }

    String flag() {
        return "--" + name;
    }

    String env() {
        return namespaceEnv != null
                ? namespaceEnv
                : "DEDUP_" + name.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** The key in a {@code --config} file, or null when a file cannot give it. */
    String fileKey() {
        if (fileSuffix != null) {
            return "namespace.<ns>" + fileSuffix;
        }
        return isConfigFile() ? null : name;
    }

    boolean perNamespace() {
        return applyToNamespace != null;
    }

    boolean isConfigFile() {
        return apply == null && applyToNamespace == null;
    }

    void apply(Draft draft, RawValue value) {
        apply.apply(draft, value);
    }

    void apply(Draft draft, String namespace, RawValue value) {
        applyToNamespace.apply(draft, namespace, value);
    }
}
