package dev.dedup.flink;

import dev.dedup.client.Claims;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.operators.ProcessingTimeService.ProcessingTimeCallback;
import org.apache.flink.streaming.api.operators.AbstractStreamOperator;
import org.apache.flink.streaming.api.operators.OneInputStreamOperator;
import org.apache.flink.streaming.api.watermark.Watermark;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;

/**
 * The operator {@link Dedup} adds: records wait in memory and are claimed in one call when a chunk is held, every
 * flush interval, before a watermark or a checkpoint barrier goes on, and at the end of input; the values answered
 * {@code NEW} or {@code RETRY} are emitted in the order they came, with their timestamps. Nothing is kept in state:
 * because the buffer is empty whenever a barrier passes, the source's checkpointed offsets are the place to read
 * again from after a failure, and what was claimed after them answers {@code RETRY}. Runs on the task's thread
 * (timers too), so the buffer needs no lock; a claim blocks that thread, for the claims' patience at most.
 */
final class DedupOperator<T> extends AbstractStreamOperator<T>
        implements OneInputStreamOperator<Claimable<T>, T>, ProcessingTimeCallback {

    private static final long serialVersionUID = 1L;

    private final Dedup<T> settings;
    private transient Claims claims;
    private transient List<StreamRecord<T>> held;
    private transient List<Item> items;

    DedupOperator(Dedup<T> settings) {
        this.settings = settings;
    }

    @Override
    public void open() throws Exception {
        super.open();
        claims = settings.newClaims();
        held = new ArrayList<>(settings.chunk());
        items = new ArrayList<>(settings.chunk());
        schedule();
    }

    @Override
    public void processElement(StreamRecord<Claimable<T>> element) throws Exception {
        Claimable<T> c = element.getValue();
        if (c.getId() == null
                || c.getId().isEmpty()
                || c.getOwner() == null
                || c.getOwner().isEmpty()) {
            throw new IllegalArgumentException("a record without an id or an owner reached dedup: " + c
                    + "; read the source with a ClaimableDeserializer");
        }
        long ms = c.getTimestamp();
        items.add(
                settings.eventTime() && ms >= 1000
                        ? new Item(c.getId(), c.getOwner(), ms / 1000)
                        : new Item(c.getId(), c.getOwner()));
        // A new StreamRecord: the input's may be reused by the runtime once this call returns.
        held.add(
                element.hasTimestamp()
                        ? new StreamRecord<>(c.getValue(), element.getTimestamp())
                        : new StreamRecord<>(c.getValue()));
        if (held.size() >= settings.chunk()) {
            flush();
        }
    }

    @Override
    public void onProcessingTime(long time) throws Exception {
        flush();
        schedule();
    }

    /** Before a watermark goes on, the records that came before it: a record after its watermark is late. */
    @Override
    public void processWatermark(Watermark mark) throws Exception {
        flush();
        super.processWatermark(mark);
    }

    /** Nothing held when the barrier goes on: the checkpoint's offsets are past only records already forwarded. */
    @Override
    public void prepareSnapshotPreBarrier(long checkpointId) throws Exception {
        flush();
        super.prepareSnapshotPreBarrier(checkpointId);
    }

    @Override
    public void finish() throws Exception {
        flush();
        super.finish();
    }

    private void schedule() {
        ProcessingTimeCallback self = this;
        getProcessingTimeService()
                .registerTimer(
                        getProcessingTimeService().getCurrentProcessingTime()
                                + settings.flushEvery().toMillis(),
                        self);
    }

    /** Claims what is held, emits the values that are not duplicates, empties the buffer. */
    private void flush() throws IOException {
        if (held.isEmpty()) {
            return;
        }
        List<Verdict> verdicts = claim();
        int fresh = 0;
        int duplicates = 0;
        for (Verdict v : verdicts) {
            fresh += v == Verdict.NEW ? 1 : 0;
            duplicates += v == Verdict.DUPLICATE ? 1 : 0;
        }
        // Reported before the values go on: the claim is made even when a step downstream fails on one of them.
        settings.listener().claimed(fresh, held.size() - fresh - duplicates, duplicates);
        for (int i = 0; i < held.size(); i++) {
            if (verdicts.get(i) != Verdict.DUPLICATE) {
                output.collect(held.get(i));
            }
        }
        held.clear();
        items.clear();
    }

    /**
     * Claims, waiting out an agent restart for the claims' patience; past it the task fails and the job restores
     * from its last checkpoint, before any of the held records: they are read and claimed again.
     */
    private List<Verdict> claim() throws IOException {
        try {
            return claims.claim(items);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while claiming");
        } catch (IOException e) {
            throw new IOException(
                    "claiming at the agent failed; the held records are read and claimed again when the job"
                            + " restores from its last checkpoint",
                    e);
        }
    }
}
