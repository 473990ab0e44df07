package dev.dedup.loadtest.workload;

/**
 * One copy of a message as a worker holds it: the producer's id, where this copy sits in the log (its
 * owner), and the time the producer stamped into the message, which every copy shares.
 *
 * @param id          the message id, UUID-shaped
 * @param owner       {@code p<partition>:<offset>}
 * @param eventSecond seconds since the start of the run's event time (see {@link EventTime})
 */
public record Message(String id, String owner, int eventSecond) {}
