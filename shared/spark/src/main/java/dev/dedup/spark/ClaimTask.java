package dev.dedup.spark;

import dev.dedup.client.Claims;
import dev.dedup.client.DedupClient;
import dev.dedup.client.DedupException;
import dev.dedup.wire.Item;
import dev.dedup.wire.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.util.LongAccumulator;

/**
 * One task's claims: the partition's rows are read in chunks, each chunk claimed in one request, and the rows come out
 * in order, either the kept ones or all of them with their verdict. Rows are read lazily, so a partition never sits
 * in memory whole; a chunk does.
 */
final class ClaimTask implements MapPartitionsFunction<Row, Row> {

    private static final long serialVersionUID = 1L;

    private final String namespace;
    private final RowReader reader;
    private final int width; // the caller's columns; any after them are ours, dropped from the output
    private final boolean markAll; // true: every row plus its verdict; false: the kept rows as they came
    private final int chunk;
    private final Duration patience;
    private final List<String> agents; // empty: the executor's own
    private final String token;
    private final LongAccumulator fresh;
    private final LongAccumulator retried;
    private final LongAccumulator duplicates;

    ClaimTask(
            String namespace,
            RowReader reader,
            int width,
            boolean markAll,
            int chunk,
            Duration patience,
            List<String> agents,
            String token,
            LongAccumulator[] counters) {
        this.namespace = namespace;
        this.reader = reader;
        this.width = width;
        this.markAll = markAll;
        this.chunk = chunk;
        this.patience = patience;
        this.agents = List.copyOf(agents);
        this.token = token;
        this.fresh = counters[0];
        this.retried = counters[1];
        this.duplicates = counters[2];
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
        DedupClient client = ExecutorAgents.client(agent(), token);
        Claims claims = new Claims(client, namespace, patience);
        return new Iterator<>() {
            private final ArrayDeque<Row> ready = new ArrayDeque<>();

            @Override
            public boolean hasNext() {
                while (ready.isEmpty() && rows.hasNext()) {
                    claimNextChunk(rows, claims, ready);
                }
                return !ready.isEmpty();
            }

            @Override
            public Row next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                return ready.poll();
            }
        };
    }

    /** A task takes the agent at its partition index, when several are named. */
    private String agent() {
        if (agents.isEmpty()) {
            return null;
        }
        TaskContext task = TaskContext.get();
        return agents.get((task == null ? 0 : task.partitionId()) % agents.size());
    }

    private void claimNextChunk(Iterator<Row> rows, Claims claims, ArrayDeque<Row> ready) {
        List<Row> chunkRows = new ArrayList<>(chunk);
        List<Item> items = new ArrayList<>(chunk);
        while (rows.hasNext() && chunkRows.size() < chunk) {
            Row r = rows.next();
            items.add(reader.item(r));
            chunkRows.add(r);
        }
        List<Verdict> verdicts;
        try {
            verdicts = claims.claim(items);
        } catch (IOException e) {
            // Nothing of this chunk is skipped: the task fails, and Spark's retry of it claims the same owners.
            boolean rejected = e instanceof DedupException && ((DedupException) e).isRejected();
            throw new UncheckedIOException(
                    "the agent " + claims.client().base() + (rejected ? " rejected" : " gave no verdicts for")
                            + " a chunk of " + items.size() + " rows in namespace " + namespace
                            + (rejected
                                    ? " (" + e.getMessage() + "): running the task again will not help"
                                    : "; the task fails and Spark runs it again"),
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while claiming: the task was killed", e);
        }
        for (int i = 0; i < verdicts.size(); i++) {
            Verdict v = verdicts.get(i);
            count(v);
            if (markAll) {
                ready.add(withVerdict(chunkRows.get(i), v));
            } else if (v != Verdict.DUPLICATE) {
                ready.add(chunkRows.get(i).length() == width ? chunkRows.get(i) : trimmed(chunkRows.get(i)));
            }
        }
    }

    private void count(Verdict v) {
        switch (v) {
            case NEW:
                fresh.add(1);
                break;
            case RETRY:
                retried.add(1);
                break;
            default:
                duplicates.add(1);
        }
    }

    private Row trimmed(Row r) {
        Object[] values = new Object[width];
        for (int i = 0; i < width; i++) {
            values[i] = r.get(i);
        }
        return RowFactory.create(values);
    }

    private Row withVerdict(Row r, Verdict v) {
        Object[] values = new Object[width + 1];
        for (int i = 0; i < width; i++) {
            values[i] = r.get(i);
        }
        values[width] = v.wireName(); // the contract's word: new, retry, duplicate
        return RowFactory.create(values);
    }
}
