package dev.dedup.agent.config.value;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a token must be, and how a token file is read: every refusal names the setting and never the token. */
class TokensTest {

    @TempDir
    Path dir;

    @Test
    void aTokenIsRefusedWhenShort_notPrintable_ofFewCharacters_orAStringRepeated() {
        assertEquals("too short", Tokens.weakness("0123456789abcde"));
        assertEquals("a space, a control or a non-ASCII character", Tokens.weakness("0123456789 abcdef"));
        assertEquals("a space, a control or a non-ASCII character", Tokens.weakness("0123456789abcdéf"));
        assertEquals("fewer than 4 different characters", Tokens.weakness("a".repeat(32)));
        assertEquals("fewer than 4 different characters", Tokens.weakness("aab".repeat(6)));
        assertEquals("a string of 4 characters repeated", Tokens.weakness("abcd".repeat(4)));
        assertEquals("a string of 9 characters repeated", Tokens.weakness("secret-12".repeat(2)));
        assertNull(Tokens.weakness("0123456789abcdef"));
        assertNull(Tokens.weakness("abcd".repeat(4) + "e"), "a repetition that does not fill the token is not one");
        assertNull(Tokens.weakness("4f9c1e0b7a2d8e6f3c5b9a1d0e7f2c4b"));

        ConfigException e = assertThrows(ConfigException.class, () -> Tokens.requireStrong("token", "abcd".repeat(4)));
        assertEquals(
                "token: a token of 16 characters is refused (a string of 4 characters repeated); use " + Tokens.RULE
                        + ", e.g. the output of `openssl rand -hex 32`",
                e.getMessage());
    }

    @Test
    void aFileHoldsOneOrTwoTokens_aLineEach_commentsAndBlankLinesLeftOut() throws Exception {
        assertEquals(
                List.of("first-token-0123456789"),
                Tokens.readFile("token-file", Files.writeString(dir.resolve("one"), "first-token-0123456789")));
        assertEquals(
                List.of("first-token-0123456789", "second-token-0123456789"),
                Tokens.readFile(
                        "token-file",
                        Files.writeString(
                                dir.resolve("two"),
                                "# the old one, then the new one\r\n  first-token-0123456789 \n\nsecond-token-0123456789\n")));
    }

    @Test
    void aBadFileIsRefused_namingTheSettingTheFileAndTheLine_neverTheToken() throws Exception {
        Path weak = Files.writeString(dir.resolve("weak"), "good-token-0123456789\n" + "x".repeat(20) + "\n");
        assertRefused(
                weak,
                "token-file: line 2 of " + weak + " holds a token of 20 characters that is refused (fewer than 4"
                        + " different characters); use " + Tokens.RULE,
                "x".repeat(20));
        Path three = Files.writeString(
                dir.resolve("three"), "first-token-0123456789\nsecond-token-0123456789\nthird-token-0123456789\n");
        assertRefused(
                three,
                "token-file: " + three + " holds 3 tokens; at most 2 (the one in use and the next one, while workers"
                        + " move to it)",
                "third-token");
        Path empty = Files.writeString(dir.resolve("empty"), "# nothing yet\n\n");
        assertRefused(empty, "token-file: " + empty + " holds no token; write one a line", "#");
        Path twice = Files.writeString(dir.resolve("twice"), "first-token-0123456789\nfirst-token-0123456789\n");
        assertRefused(twice, "token-file: line 2 of " + twice + " repeats a token above it", "first-token");
        Path large = Files.writeString(dir.resolve("large"), "first-token-0123456789\n".repeat(200));
        assertRefused(
                large,
                "token-file: " + large + " has more than 4096 bytes; a token file holds one token a line, 2 at most",
                "first-token");
        Path missing = dir.resolve("missing");
        ConfigException e = assertThrows(ConfigException.class, () -> Tokens.readFile("token-file", missing));
        assertTrue(e.getMessage().startsWith("token-file: cannot read " + missing + " ("), e.getMessage());
    }

    private static void assertRefused(Path file, String message, String secret) {
        ConfigException e = assertThrows(ConfigException.class, () -> Tokens.readFile("token-file", file));
        assertEquals(message, e.getMessage());
        if (!secret.equals("#")) {
            assertFalse(e.getMessage().contains(secret), e.getMessage());
        }
    }
}
