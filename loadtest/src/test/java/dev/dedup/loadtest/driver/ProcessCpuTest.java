package dev.dedup.loadtest.driver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProcessCpuTest {

    @Test
    void utimeAndStimeAreFields14And15_evenWhenTheCommandHasSpacesAndParentheses() {
        String stat = "4242 (redis (server) x) S 1 4242 4242 0 -1 4194560 1531 0 0 0 1234 567 0 0 20 0 5 0 100 0";
        assertEquals(1234 + 567, ProcessCpu.ticksOf(stat));
    }

    @Test
    void thisProcessUsesCpu_andAMissingOneIsNamed() {
        ProcessCpu self = new ProcessCpu(List.of(ProcessHandle.current().pid()));
        double before = self.seconds();
        long spin = System.nanoTime() + 300_000_000L;
        long x = 0;
        while (System.nanoTime() < spin) {
            x += System.nanoTime() % 7;
        }
        assertTrue(x > 0);
        assertTrue(self.seconds() - before >= 0.1, "300 ms of spinning shows as CPU time");
        IllegalStateException e =
                assertThrows(IllegalStateException.class, () -> new ProcessCpu(List.of(999_999_999L)).seconds());
        assertTrue(e.getMessage().contains("999999999"), e.getMessage());
    }
}
