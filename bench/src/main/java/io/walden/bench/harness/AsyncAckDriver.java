package io.walden.bench.harness;

import io.walden.Durability;
import io.walden.Wal;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One writer, {@code WRITTEN} acknowledged asynchronously (the brief's one-million-appends bar): the
 * writer appends with {@code BUFFERED}, which returns once the record is in the log buffer (waiting
 * only when the buffer is full), notes each record's LSN and start time in a ring, and after every
 * append reads {@link Wal#writtenPosition()} once: each record below it is acknowledged, and its
 * latency is the time from its append to that observation. No thread waits per record, and no
 * third thread competes for the two cores of a small machine. A record counts when its
 * acknowledgement is observed inside the measured interval.
 *
 * <p>The ring holds {@value #RING_CAPACITY} records, more than the 8 MiB log buffer can hold at
 * 128 B, so the writer waits for the log's back-pressure, never for the ring.
 *
 * <p><b>Threading:</b> {@link #run} on the calling thread, which starts and joins the writer.
 */
final class AsyncAckDriver {
    private static final int RING_CAPACITY = 1 << 17;
    private static final int RING_MASK = RING_CAPACITY - 1;
    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    private final long[] lsns = new long[RING_CAPACITY];
    private final long[] startNs = new long[RING_CAPACITY];
    private volatile int phase = WARMUP;

    /**
     * Runs the writer.
     *
     * @param wal the open log.
     * @param scenario record size, warm-up and measured duration.
     * @return what was measured.
     * @throws InterruptedException if interrupted.
     */
    Measurement run(final Wal wal, final Scenario scenario) throws InterruptedException {
        final Histogram histogram = Measurement.newHistogram();
        final long[] acknowledged = new long[1];
        final String[] failure = {""};
        final UnsafeBuffer payload = new UnsafeBuffer(ByteBuffer.allocateDirect(scenario.recordBytes()));
        final Thread writer = new Thread(
                () -> {
                    try {
                        acknowledged[0] = loop(wal, payload, histogram);
                    } catch (final RuntimeException | Error ex) {
                        failure[0] = ex.toString();
                    }
                },
                "writer-0");
        writer.setDaemon(true);
        System.gc();
        writer.start();
        TimeUnit.MILLISECONDS.sleep(scenario.warmupMs());
        final Probe probe = new Probe();
        final long syncsBefore = wal.stats().syncs();
        probe.start();
        phase = MEASURE;
        TimeUnit.MILLISECONDS.sleep(scenario.measureMs());
        phase = STOP;
        final Probe.Reading reading = probe.stop();
        final long syncs = wal.stats().syncs() - syncsBefore;
        writer.join();
        final int failures = failure[0].isEmpty() ? 0 : 1;
        return new Measurement(acknowledged[0], histogram, reading, syncs, Double.NaN, failures, failure[0]);
    }

    private long loop(final Wal wal, final UnsafeBuffer payload, final Histogram histogram) {
        final int length = payload.capacity();
        long appended = 0;
        long observed = 0;
        long counted = 0;
        while (true) {
            final int current = phase;
            if (current == STOP) {
                return counted;
            }
            if (appended - observed < RING_CAPACITY) {
                final long beginNs = System.nanoTime();
                final long lsn = wal.append(payload, 0, length, Durability.BUFFERED);
                final int index = (int) (appended & RING_MASK);
                lsns[index] = lsn;
                startNs[index] = beginNs;
                appended++;
            }
            final long written = wal.writtenPosition();
            if (observed < appended && lsns[(int) (observed & RING_MASK)] < written) {
                final long nowNs = System.nanoTime();
                do {
                    final int index = (int) (observed & RING_MASK);
                    if (current == MEASURE) {
                        histogram.recordValue(Math.min(nowNs - startNs[index], Measurement.HIGHEST_TRACKABLE_NS));
                        counted++;
                    }
                    observed++;
                } while (observed < appended && lsns[(int) (observed & RING_MASK)] < written);
            }
        }
    }
}
