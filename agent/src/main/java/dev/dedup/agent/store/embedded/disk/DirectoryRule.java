package dev.dedup.agent.store.embedded.disk;

import java.nio.file.Path;

/**
 * Whether the agent may keep its store in a directory, from the directory's owner, group and mode and the agent's
 * own user and group: a pure decision, which {@link DataDirectory} reads the facts for and acts on.
 *
 * <p>Whoever may write the directory may replace the store's files or plant a link where the agent is about to write,
 * so only the agent's side may write it:
 *
 * <ul>
 *   <li>its owner is the agent's user, or root (who can do anything to the agent's files anyway);
 *   <li>its group may write it only when that group is the agent's own group (a Kubernetes volume with {@code
 *       fsGroup} equal to the pod's {@code runAsGroup} is root's, group-writable and setgid: 2775);
 *   <li>others may never write it, sticky bit or not.
 * </ul>
 *
 * <p>Group or others may read it and list it: the files inside are 0600, so a listing shows their names and sizes and
 * nothing of what they hold.
 */
final class DirectoryRule {

    static final int ROOT = 0;
    private static final int GROUP_WRITE = 0020;
    private static final int OTHERS_WRITE = 0002;

    private DirectoryRule() {}

    /**
     * Null when the agent may use {@code dir}, else the one line saying why not and what to do.
     *
     * @param uid      the directory's owner
     * @param gid      the directory's group
     * @param mode     the directory's mode bits (permissions, setgid, sticky; any file-type bits are ignored)
     * @param agentUid the agent's user
     * @param agentGid the agent's group (the process's primary group)
     */
    static String refusal(Path dir, long uid, long gid, int mode, long agentUid, long agentGid) {
        String found = dir + " (owner uid " + uid + ", group gid " + gid + ", mode "
                + String.format("%04o", mode & 07777) + ")";
        if ((mode & OTHERS_WRITE) != 0) {
            return "data-dir: " + found + " may be written by every user: run chmod o-w " + dir
                    + " (0700 is best), or give --data-dir a new directory, which the agent creates 0700";
        }
        if (uid != agentUid && uid != ROOT) {
            return "data-dir: " + found + " belongs to another user than the agent's (uid " + agentUid + "): run chown "
                    + agentUid + " " + dir + ", or give --data-dir a new directory, which the agent creates 0700";
        }
        if ((mode & GROUP_WRITE) != 0 && gid != agentGid) {
            return "data-dir: " + found + " may be written by group " + gid + ", not the agent's group (gid "
                    + agentGid + "): run chmod g-w " + dir + " or chgrp " + agentGid + " " + dir
                    + " (in Kubernetes: fsGroup equal to runAsGroup)";
        }
        return null;
    }
}
