package dev.dedup.agent.config.value;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What a bearer token must be ({@code --token}, {@code --read-token}, and each token of {@code --token-file} and
 * {@code --read-token-file}), and how a token file is read. A message names the setting, the file and what is
 * wrong, never a token.
 */
public final class Tokens {

    /** Fewest characters a token may have. */
    public static final int MIN_LENGTH = 16;

    /** Fewest different characters a token may have: {@code aaaa...} and {@code 1212...} are refused. */
    public static final int MIN_DISTINCT = 4;

    /** Most tokens one file holds: the one in use, and the next one while workers move to it. */
    public static final int MAX_PER_FILE = 2;

    /** Most bytes a token file may have. */
    static final int MAX_FILE_BYTES = 4096;

    /** How a token must be written, for messages and the docs. */
    public static final String RULE = "at least " + MIN_LENGTH + " printable ASCII characters without spaces, at least "
            + MIN_DISTINCT + " of them different, and not a shorter string repeated";

    private Tokens() {}

    /** Throws a {@link ConfigException} naming {@code setting} (and never the token) unless {@code token} is strong. */
    public static void requireStrong(String setting, String token) {
        String weakness = weakness(token);
        if (weakness != null) {
            throw new ConfigException(setting + ": a token of " + token.length() + " characters is refused (" + weakness
                    + "); use " + RULE + ", e.g. the output of `openssl rand -hex 32`");
        }
    }

    /** Why {@code token} is refused, or null when it is not. */
    static String weakness(String token) {
        if (token.length() < MIN_LENGTH) {
            return "too short";
        }
        if (!token.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
            return "a space, a control or a non-ASCII character";
        }
        if (token.chars().distinct().count() < MIN_DISTINCT) {
            return "fewer than " + MIN_DISTINCT + " different characters";
        }
        for (int period = 1; period <= token.length() / 2; period++) {
            if (token.length() % period == 0 && token.regionMatches(period, token, 0, token.length() - period)) {
                return "a string of " + period + " characters repeated";
            }
        }
        return null;
    }

    /**
     * The tokens of a token file: one a line, {@value #MAX_PER_FILE} at most, each strong; blank lines and lines
     * that start with {@code #} are left out, and so is the space around a token. A Kubernetes Secret's key mounted
     * as a file (its one value, with or without a final newline) is such a file.
     */
    public static List<String> readFile(String setting, Path file) {
        return readFile(setting, file, false);
    }

    /**
     * {@link #readFile(String, Path)}, where {@code mayBeEmpty} lets a file hold no token: read again while the agent
     * runs, a file emptied on purpose revokes every token it held.
     */
    public static List<String> readFile(String setting, Path file, boolean mayBeEmpty) {
        byte[] bytes;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new ConfigException(setting + ": " + file + " has more than " + MAX_FILE_BYTES
                        + " bytes; a token file holds one token a line, " + MAX_PER_FILE + " at most");
            }
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(setting + ": cannot read " + file + " ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
        List<String> tokens = new ArrayList<>();
        int line = 0;
        for (String text : new String(bytes, StandardCharsets.UTF_8).split("\r?\n", -1)) {
            line++;
            String token = text.strip();
            if (token.isEmpty() || token.startsWith("#")) {
                continue;
            }
            String weakness = weakness(token);
            if (weakness != null) {
                throw new ConfigException(setting + ": line " + line + " of " + file + " holds a token of "
                        + token.length() + " characters that is refused (" + weakness + "); use " + RULE);
            }
            if (tokens.contains(token)) {
                throw new ConfigException(setting + ": line " + line + " of " + file + " repeats a token above it");
            }
            tokens.add(token);
        }
        if (tokens.isEmpty() && !mayBeEmpty) {
            throw new ConfigException(setting + ": " + file + " holds no token; write one a line");
        }
        if (tokens.size() > MAX_PER_FILE) {
            throw new ConfigException(setting + ": " + file + " holds " + tokens.size() + " tokens; at most "
                    + MAX_PER_FILE + " (the one in use and the next one, while workers move to it)");
        }
        return List.copyOf(tokens);
    }
}
