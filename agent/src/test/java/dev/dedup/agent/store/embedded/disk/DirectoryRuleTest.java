package dev.dedup.agent.store.embedded.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DirectoryRuleTest {

    private static final Path DIR = Path.of("/var/lib/dedup");
    private static final long AGENT = 10001;

    private static String refusal(long uid, long gid, int mode) {
        return DirectoryRule.refusal(DIR, uid, gid, mode, AGENT, AGENT);
    }

    @Test
    void theAgentsOwnDirectory_isAccepted_readableByOthersOrNot() {
        assertNull(refusal(AGENT, AGENT, 0700));
        assertNull(refusal(AGENT, AGENT, 0750));
        assertNull(refusal(AGENT, AGENT, 0755));
        assertNull(refusal(AGENT, AGENT, 040700), "file-type bits are ignored");
    }

    @Test
    void aKubernetesVolumeWithFsGroupEqualToRunAsGroup_isAccepted() {
        assertNull(refusal(0, AGENT, 02775), "root:fsGroup, setgid, group-writable");
        assertNull(refusal(0, AGENT, 02770));
        assertNull(refusal(AGENT, AGENT, 02775), "the agent's files after fsGroup's chown");
    }

    @Test
    void aDirectoryEveryUserMayWrite_isRefused_stickyOrNot() {
        for (int mode : new int[] {0777, 01777, 02777, 0703}) {
            String refusal = refusal(AGENT, AGENT, mode);
            assertEquals(
                    "data-dir: /var/lib/dedup (owner uid 10001, group gid 10001, mode " + String.format("%04o", mode)
                            + ") may be written by every user: run chmod o-w /var/lib/dedup (0700 is best), or give"
                            + " --data-dir a new directory, which the agent creates 0700",
                    refusal);
        }
        assertTrue(refusal(0, AGENT, 02777).contains("every user"), "an emptyDir with fsGroup");
    }

    @Test
    void anotherUsersDirectory_isRefused_evenIfOnlyItMayWrite() {
        assertEquals(
                "data-dir: /var/lib/dedup (owner uid 65534, group gid 65534, mode 0700) belongs to another user than"
                        + " the agent's (uid 10001): run chown 10001 /var/lib/dedup, or give --data-dir a new"
                        + " directory, which the agent creates 0700",
                refusal(65534, 65534, 0700));
        assertTrue(refusal(65534, AGENT, 02775).contains("another user"));
    }

    @Test
    void aDirectoryAnotherGroupMayWrite_isRefused_sayingWhatToChange() {
        assertEquals(
                "data-dir: /var/lib/dedup (owner uid 10001, group gid 2000, mode 2775) may be written by group 2000,"
                        + " not the agent's group (gid 10001): run chmod g-w /var/lib/dedup or chgrp 10001"
                        + " /var/lib/dedup (in Kubernetes: fsGroup equal to runAsGroup)",
                refusal(AGENT, 2000, 02775));
        assertTrue(refusal(0, 2000, 02775).contains("group 2000"), "fsGroup other than runAsGroup");
        assertNull(refusal(AGENT, 2000, 02755), "another group that may only read");
    }

    @Test
    void rootsDirectory_isAcceptedForAnAgentRunningAsRoot() {
        assertNull(DirectoryRule.refusal(DIR, 0, 0, 0700, 0, 0));
        assertTrue(DirectoryRule.refusal(DIR, AGENT, AGENT, 0700, 0, 0).contains("another user"));
    }
}
