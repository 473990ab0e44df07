package dev.dedup.agent.http;

import dev.dedup.agent.config.HttpOptions;
import dev.dedup.agent.config.value.ConfigException;
import dev.dedup.agent.config.value.Tokens;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;

/**
 * The bearer tokens the agent accepts now: claim tokens ({@code --token} or {@code --token-file}), which may do
 * anything, and read tokens ({@code --read-token} or {@code --read-token-file}), which read {@code /metrics} and
 * {@code /v1/stats} alone. Token files are re-read by {@link #reload}, which the agent calls every
 * {@link HttpOptions#TOKEN_FILE_CHECK}; every server instance sees the new tokens at once. Shared by all of them.
 */
public final class Credentials {

    /** What a request's token lets it do. */
    enum Scope {
        /** No token, or none the agent accepts. */
        NONE,
        /** A read token: {@code /metrics}, {@code /v1/stats} and {@code /health/ready}'s reason. */
        READ,
        /** A claim token: everything. */
        CLAIM
    }

    private static final String PREFIX = "Bearer ";

    /** The tokens in force, and the files' text they came from. */
    private record Held(List<byte[]> claim, List<byte[]> read, List<String> claimText, List<String> readText) {}

    private final HttpOptions options;
    private volatile Held held;

    /** The tokens of {@code options}, its files read now. */
    public Credentials(HttpOptions options) {
        this.options = options;
        this.held = load(claimTokens(), readTokens());
    }

    /** Whether the claim API wants a token. */
    boolean claimRequired() {
        return options.claimTokenSet();
    }

    /** Whether {@code /metrics} and {@code /v1/stats} want a token (any is set). */
    boolean readRequired() {
        return options.anyTokenSet();
    }

    /** What the {@code Authorization} header's token lets a request do; every token is compared in constant time. */
    Scope scopeOf(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return Scope.NONE;
        }
        byte[] presented = authorization.substring(PREFIX.length()).trim().getBytes(StandardCharsets.US_ASCII);
        Held now = held;
        boolean claim = false;
        boolean read = false;
        for (byte[] token : now.claim) {
            claim |= MessageDigest.isEqual(token, presented);
        }
        for (byte[] token : now.read) {
            read |= MessageDigest.isEqual(token, presented);
        }
        return claim ? Scope.CLAIM : read ? Scope.READ : Scope.NONE;
    }

    /**
     * Reads the token files again. Returns what changed ({@code "token-file: 2 tokens"}), or null when nothing did.
     * A file emptied (or left with comments alone) revokes the tokens it held: requests that want one are refused
     * until it holds one again. A file that cannot be read or holds a refused token changes nothing: the {@link
     * ConfigException} says why.
     */
    public String reload() {
        if (options.tokenFile() == null && options.readTokenFile() == null) {
            return null;
        }
        List<String> claim = tokens(options.token(), "token-file", options.tokenFile(), true);
        List<String> read = tokens(options.readToken(), "read-token-file", options.readTokenFile(), true);
        Held before = held;
        if (claim.equals(before.claimText) && read.equals(before.readText)) {
            return null;
        }
        if (read.stream().anyMatch(claim::contains)) {
            throw new ConfigException(
                    "read-token-file: a read token is also a claim token; give readers a token of" + " their own");
        }
        held = load(claim, read);
        StringBuilder changed = new StringBuilder();
        if (!claim.equals(before.claimText)) {
            changed.append("token-file: ").append(count(claim));
        }
        if (!read.equals(before.readText)) {
            changed.append(changed.length() == 0 ? "" : ", ")
                    .append("read-token-file: ")
                    .append(count(read));
        }
        return changed.toString();
    }

    private static String count(List<String> tokens) {
        return tokens.isEmpty()
                ? "no token: every token it held is revoked, and requests that want one are refused"
                : tokens.size() == 1 ? "1 token" : tokens.size() + " tokens";
    }

    private List<String> claimTokens() {
        return tokens(options.token(), "token-file", options.tokenFile(), false);
    }

    private List<String> readTokens() {
        return tokens(options.readToken(), "read-token-file", options.readTokenFile(), false);
    }

    private static List<String> tokens(String value, String setting, Path file, boolean mayBeEmpty) {
        if (file != null) {
            return Tokens.readFile(setting, file, mayBeEmpty);
        }
        return value == null ? List.of() : List.of(value);
    }

    private static Held load(List<String> claim, List<String> read) {
        return new Held(bytes(claim), bytes(read), claim, read);
    }

    private static List<byte[]> bytes(List<String> tokens) {
        return tokens.stream().map(t -> t.getBytes(StandardCharsets.US_ASCII)).toList();
    }
}
