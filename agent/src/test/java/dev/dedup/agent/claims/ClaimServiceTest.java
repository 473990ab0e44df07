package dev.dedup.agent.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dedup.agent.config.WindowMode;
import dev.dedup.agent.config.WindowOptions;
import dev.dedup.agent.store.ClaimPolicy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The policy the service finds for a namespace, resolved once at start, is the one its settings give: for the
 * namespaces the configuration names, and through the {@code *} entries for every other. Resolving policies needs
 * neither a store nor metrics.
 */
class ClaimServiceTest {

    private static final Duration DAY = Duration.ofHours(24);
    private static final String EVERY = WindowOptions.EVERY_NAMESPACE;

    private static ClaimService service(WindowOptions windows) {
        return new ClaimService(null, windows, null);
    }

    /** Each namespace's policy equals the one its window, window mode and event rate make. */
    private static void assertSettingsPolicies(WindowOptions windows, List<String> namespaces) {
        ClaimService service = service(windows);
        for (String ns : namespaces) {
            assertEquals(ClaimPolicy.of(windows, ns), service.policy(ns), ns);
        }
    }

    @Test
    void namedAndUnnamedNamespaces_getTheirSettingsPolicy_whenStarMakesWindowsSlide() {
        WindowOptions windows = new WindowOptions(
                DAY,
                Map.of("clicks", Duration.ofHours(1), "timed", Duration.ofHours(2)),
                Map.of("timed", 100),
                Map.of(EVERY, WindowMode.SLIDING, "timed", WindowMode.FIXED, "orders", WindowMode.FIXED));

        assertSettingsPolicies(windows, List.of("clicks", "timed", "orders", "other", "default"));
        ClaimService service = service(windows);
        assertEquals(ClaimPolicy.sliding(Duration.ofHours(1).toMillis()), service.policy("clicks"));
        assertEquals(new ClaimPolicy(Duration.ofHours(2).toMillis(), 100, false), service.policy("timed"));
        assertEquals(ClaimPolicy.window(DAY.toMillis()), service.policy("orders"));
        assertEquals(ClaimPolicy.sliding(DAY.toMillis()), service.policy("other"), "an unnamed namespace takes *");
    }

    @Test
    void namedAndUnnamedNamespaces_getTheirSettingsPolicy_whenStarFilesByEventTime() {
        WindowOptions windows =
                new WindowOptions(DAY, Map.of("views", Duration.ofHours(1)), Map.of(EVERY, 7, "clicks", 9), Map.of());

        assertSettingsPolicies(windows, List.of("views", "clicks", "other", "default"));
        ClaimService service = service(windows);
        assertEquals(new ClaimPolicy(Duration.ofHours(1).toMillis(), 7, false), service.policy("views"));
        assertEquals(new ClaimPolicy(DAY.toMillis(), 9, false), service.policy("clicks"));
        assertEquals(
                new ClaimPolicy(DAY.toMillis(), 7, false), service.policy("other"), "an unnamed namespace takes *");
    }

    @Test
    void withoutNamespaceSettings_everyNamespaceKeepsTheDefaultFixedWindow() {
        WindowOptions windows = WindowOptions.defaults();

        assertSettingsPolicies(windows, List.of("default", "anything"));
        assertEquals(
                ClaimPolicy.window(WindowOptions.DEFAULT_WINDOW.toMillis()),
                service(windows).policy("anything"));
    }
}
