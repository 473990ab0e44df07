package dev.dedup.kafka.streams;

import dev.dedup.client.Claims;
import dev.dedup.client.Owners;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The processor {@link Dedup} makes: each record goes into a changelogged buffer with its id and owner, and the
 * buffer is claimed in one call when it holds a chunk or every flush interval, forwarding the records answered {@code
 * NEW} or {@code RETRY} in the order they came, then emptied. The buffer and the input offsets commit together (under
 * exactly-once, with the output too), so a record read and not yet claimed when an instance dies is restored with
 * its task and claimed then ({@code RETRY} when the dead instance had claimed it: same owner).
 */
final class DedupProcessor<K, V> implements Processor<K, V, K, V> {

    private final Dedup<K, V> settings;
    private ProcessorContext<K, V> context;
    private KeyValueStore<Long, byte[]> buffer;
    private long next;
    private int held;

    DedupProcessor(Dedup<K, V> settings) {
        this.settings = settings;
    }

    @Override
    public void init(ProcessorContext<K, V> context) {
        this.context = context;
        this.buffer = context.getStateStore(settings.storeName());
        // After a restore the buffer may hold records: go on after the last one, and claim them first.
        try (KeyValueIterator<Long, byte[]> all = buffer.all()) {
            while (all.hasNext()) {
                next = Math.max(next, all.next().key + 1);
                held++;
            }
        }
        context.schedule(settings.flushEvery(), PunctuationType.WALL_CLOCK_TIME, now -> flush());
    }

    @Override
    public void process(Record<K, V> record) {
        RecordMetadata source = context.recordMetadata()
                .orElseThrow(() -> new IllegalStateException("Dedup needs each record's topic, partition and offset:"
                        + " put it right after a source topic (builder.stream(...).process(dedup))"));
        String id = settings.idOf(record, source);
        String owner = Owners.kafka(source.topic(), source.partition(), source.offset());
        long second = settings.eventTime() && record.timestamp() >= 1000 ? record.timestamp() / 1000 : -1;
        buffer.put(next++, BufferedRecord.encode(settings, record, id, owner, second));
        if (++held >= settings.chunk()) {
            flush();
        }
    }

    /** Claims what the buffer holds, forwards the records that are not duplicates, empties the buffer. */
    private void flush() {
        if (held == 0) {
            return;
        }
        List<Long> keys = new ArrayList<>(held);
        List<BufferedRecord<K, V>> records = new ArrayList<>(held);
        try (KeyValueIterator<Long, byte[]> all = buffer.all()) {
            while (all.hasNext()) {
                KeyValue<Long, byte[]> e = all.next();
                keys.add(e.key);
                records.add(BufferedRecord.decode(settings, e.value));
            }
        }
        List<Item> items = new ArrayList<>(records.size());
        for (BufferedRecord<K, V> r : records) {
            items.add(r.item());
        }
        List<Verdict> verdicts = claim(settings.claims(), items);
        int fresh = 0;
        int duplicates = 0;
        for (int i = 0; i < records.size(); i++) {
            Verdict v = verdicts.get(i);
            if (v == Verdict.DUPLICATE) {
                duplicates++;
            } else {
                fresh += v == Verdict.NEW ? 1 : 0;
                context.forward(records.get(i).record());
            }
        }
        for (Long key : keys) {
            buffer.delete(key);
        }
        held = 0;
        settings.listener().claimed(fresh, records.size() - fresh - duplicates, duplicates);
    }

    /**
     * Claims, waiting out an agent restart for the claims' patience; past it the stream thread fails, and its task,
     * restored with the buffer, claims the same records again.
     */
    private static List<Verdict> claim(Claims claims, List<Item> items) {
        try {
            return claims.claim(items);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new InterruptedIOException("interrupted while claiming"));
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "claiming at the agent failed; the buffered records are claimed again"
                            + " when the task is restored",
                    e);
        }
    }

    static Duration positive(String setting, Duration d) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(setting + ": must be positive, got " + d);
        }
        return d;
    }
}
