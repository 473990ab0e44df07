package dev.dedup.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A Redis URI's password never survives {@link RedisOptions#redact} or {@link RedisOptions#scrub}, malformed or not. */
class RedisUriRedactionTest {

    private static final String SECRET = "S3cretPW";

    @Test
    void theUserStays_thePasswordGoes() {
        assertEquals("redis://dedup:***@10.0.0.5:6379", RedisOptions.redact("redis://dedup:S3cretPW@10.0.0.5:6379"));
        assertEquals("rediss://***@h:6380", RedisOptions.redact("rediss://:S3cretPW@h:6380"));
        assertEquals(
                "redis-sentinel://***@s1:26379,s2:26379#m",
                RedisOptions.redact("redis-sentinel://S3cretPW@s1:26379,s2:26379#m"));
        assertEquals(
                "redis-sentinel://dedup:***@s1:26379,s2:26379#m",
                RedisOptions.redact("redis-sentinel://dedup:S3cretPW@s1:26379,s2:26379#m"));
        assertEquals(
                "rediss-sentinel://dedup:***@s1:26379,s2:26379#m",
                RedisOptions.redact("rediss-sentinel://dedup:S3cretPW@s1:26379,s2:26379#m"));
        assertEquals("redis://h:6379", RedisOptions.redact("redis://h:6379"), "nothing to hide");
    }

    @Test
    void aSentinelShardsOptions_andASentinelsRefusal_keepTheSecret() {
        String uri = "rediss-sentinel://dedup:S3cretPW@s1:26379,s2:26379#m";
        RedisOptions options = RedisOptions.builder(List.of(uri)).build();
        assertEquals(List.of("rediss-sentinel://dedup:***@s1:26379,s2:26379#m"), RedisOptions.redacted(options.uris()));
        String refusal = "s1:26379: WRONGPASS invalid username-password pair, sent for " + uri + " (S3cretPW)";
        assertFalse(RedisOptions.scrub(refusal, uri).contains(SECRET), RedisOptions.scrub(refusal, uri));
    }

    @Test
    void malformedUris_keepTheirSecretToo() {
        for (String uri : List.of(
                "dedup:S3cretPW@127.0.0.1:6379", // no scheme
                "redis://dedup:S3cretPW@x@host:1", // an @ in the password
                "redis://dedup:S3cretPW@ho^st:1",
                "redis://dedup:S3cretPW@[::1:1",
                "rediss-sentinel://dedup:S3cretPW@s1:26379,s2:bad#m",
                "redis-sentinel://dedup:S3cretPW@x@s1:26379#m",
                "redis-cluster://dedup:S3cretPW@h1:1,h2:bad")) {
            assertFalse(RedisOptions.redact(uri).contains(SECRET), uri + " -> " + RedisOptions.redact(uri));
        }
    }

    @Test
    void aParsersMessage_isScrubbed_asWrittenAndPercentDecoded() {
        String uri = "redis://dedup:S3cret%40PW@ho^st:1";
        String message = "Illegal character in authority at index 8: " + uri + " (password S3cret@PW)";
        String scrubbed = RedisOptions.scrub(message, uri);
        assertFalse(scrubbed.contains("S3cret%40PW"), scrubbed);
        assertFalse(scrubbed.contains("S3cret@PW"), scrubbed);
        assertEquals("Illegal character in authority at index 8: redis://dedup:***@ho^st:1 (password ***)", scrubbed);
    }
}
