/**
 * The embedded store: a fixed-size, set-associative table of claims in one memory-mapped file under the
 * data directory, for an agent that runs without Redis on a single node. It survives restarts (the file
 * is the state) and never grows: a full set gives up its expired slot first, else the claim expiring
 * soonest, so the table forgets the oldest ids instead of running out of room. {@link
 * dev.dedup.agent.store.embedded.RetentionModel} says how many later ids an id survives.
 *
 * <p>Only {@link dev.dedup.agent.store.embedded.EmbeddedStore} and the model are public; the file
 * format, the slot layout and the replacement rule are moving parts of this package. The data
 * directory's checks, opening its files and the kernel's read-ahead advice live in {@link
 * dev.dedup.agent.store.embedded.disk}. Nothing here knows about HTTP, the near-cache or Redis.
 */
package dev.dedup.agent.store.embedded;
