/**
 * What a load run sends and what it should get back, independent of how it is sent: the ids of a run
 * ({@link dev.dedup.loadtest.workload.IdSpace}), the owners of their copies
 * ({@link dev.dedup.loadtest.workload.Owners}), the scenarios, the {@link dev.dedup.loadtest.workload.Ledger}
 * that decides the verdict every copy should get, the tally that classifies the answers, and the
 * pre-encoded request bodies of a scenario ({@link dev.dedup.loadtest.workload.Workload}).
 *
 * <p>Nothing here does I/O or knows about HTTP or Redis; the drivers in {@code dev.dedup.loadtest.driver}
 * send what is prepared here.
 */
package dev.dedup.loadtest.workload;
