/**
 * How the embedded store touches the disk: the data directory, checked against its owner and mode and made so that
 * only the agent's user reads it ({@code DataDirectory}, {@code DirectoryRule}); its files, opened without following
 * a link and narrowed to 0600; and the advice that tells the kernel a mapping is read at random
 * ({@code RandomAccessAdvice}). Nothing here knows the file format or the slot layout: those belong to
 * {@link dev.dedup.agent.store.embedded}, the only user of this package.
 */
package dev.dedup.agent.store.embedded.disk;
