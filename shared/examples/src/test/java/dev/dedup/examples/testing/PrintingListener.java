package dev.dedup.examples.testing;

import dev.dedup.kafka.DedupConsumerLoop;
import dev.dedup.kafka.DedupShareConsumerLoop;

/**
 * What a Kafka member prints of its loop, one line per call, for {@link Members#counts} and the tests to read:
 * {@code VERDICTS}, {@code SINK FAILED} (with the failure), {@code RELEASED} (the claims given back), {@code
 * REFUSED} (acknowledgements the broker refused); and, before committing or acknowledging batch number {@code
 * pauseAt}, {@code PAUSED} and a wait for the test's {@code kill -9}.
 */
final class PrintingListener implements DedupConsumerLoop.Listener, DedupShareConsumerLoop.Listener {

    private final int pauseAt;
    private final Runnable onClaimed;

    /** {@code onClaimed} runs as each batch's claims are answered, before its line is printed. */
    PrintingListener(int pauseAt, Runnable onClaimed) {
        this.pauseAt = pauseAt;
        this.onClaimed = onClaimed;
    }

    @Override
    public void claimed(int fresh, int retried, int duplicates) {
        onClaimed.run();
        System.out.println("VERDICTS new=" + fresh + " retry=" + retried + " duplicate=" + duplicates);
    }

    @Override
    public void sinkFailed(Exception failure) {
        System.out.println("SINK FAILED " + failure);
    }

    @Override
    public void released(int released) {
        System.out.println("RELEASED " + released);
    }

    @Override
    public void acknowledgementsRefused(int partitions, String reason) {
        System.out.println("REFUSED acknowledgements on " + partitions + " partitions: " + reason);
    }

    @Override
    public void beforeCommit(int batch) {
        if (batch == pauseAt) {
            Members.pauseUntilKilled("before committing batch " + batch);
        }
    }

    @Override
    public void beforeAcknowledge(int batch) {
        if (batch == pauseAt) {
            Members.pauseUntilKilled("before acknowledging batch " + batch);
        }
    }
}
