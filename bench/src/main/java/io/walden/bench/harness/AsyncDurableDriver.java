package io.walden.bench.harness;

import io.walden.AckHandler;
import io.walden.AsyncAppender;
import io.walden.Durability;
import io.walden.Wal;
import io.walden.WalException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * N producers, each with its own {@link AsyncAppender}, append open loop at the scenario's level
 * ({@code SYNCED} in the plan) and never wait per record: a producer appends, then polls its
 * appender, whose handler takes every acknowledgement that is due; when {@code append} returns {@link
 * Wal#BACK_PRESSURED} ({@value #CAPACITY} acknowledgements pending, or the log buffer full) the
 * producer polls and tries the same record again. No ready signal: the producer polls after every
 * append.
 *
 * <p>A record's latency is the time from its first append attempt (back-pressure included, as
 * {@link AsyncAckDriver}'s blocking append includes it) to the poll that delivered its
 * acknowledgement: the first acknowledgement of each poll reads the clock once for all of that poll's.
 * The tag of a record is its producer's append sequence, and the start time sits in a per-producer
 * ring of {@code long} indexed by {@code tag & mask}: the handler allocates nothing. A record counts
 * when its acknowledgement is observed inside the measured interval, so the row's {@code records} (what
 * the process CPU time and the allocated bytes are divided by) are acknowledged records, not appended
 * ones. A {@link AckHandler#failed failed} acknowledgement stops its producer and counts as a failure.
 *
 * <p>A back-pressured producer spins (poll, {@link Thread#onSpinWait}, append again): its CPU time is
 * in the row's CPU figure.
 *
 * <p><b>Threading:</b> {@link #run} on the calling thread, which starts and joins the producers; each
 * producer creates, uses and closes its appender on its own thread.
 */
final class AsyncDurableDriver {
    /** Acknowledgements each producer's appender may have pending. */
    static final int CAPACITY = Integer.getInteger("walden.bench.ackCapacity", 4096);

    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;
    private static final long JOIN_TIMEOUT_MS = 30_000;

    private volatile int phase = WARMUP;

    /**
     * Runs the producers.
     *
     * @param wal the open log.
     * @param scenario producers ({@code writers}), level, record size, warm-up and measured duration.
     * @return what was measured.
     * @throws InterruptedException if interrupted.
     */
    Measurement run(final Wal wal, final Scenario scenario) throws InterruptedException {
        final int count = scenario.writers();
        final Durability durability = Durability.valueOf(scenario.durability());
        final Producer[] producers = new Producer[count];
        final Thread[] threads = new Thread[count];
        for (int i = 0; i < count; i++) {
            producers[i] = new Producer(wal, durability, scenario.recordBytes(), i);
            threads[i] = new Thread(producers[i], "producer-" + i);
            threads[i].setDaemon(true);
        }
        System.gc();
        for (final Thread thread : threads) {
            thread.start();
        }
        TimeUnit.MILLISECONDS.sleep(scenario.warmupMs());
        final Probe probe = new Probe();
        final long syncsBefore = wal.stats().syncs();
        probe.start();
        phase = MEASURE;
        TimeUnit.MILLISECONDS.sleep(scenario.measureMs());
        phase = STOP;
        final Probe.Reading reading = probe.stop();
        final long syncs = wal.stats().syncs() - syncsBefore;
        final Histogram all = Measurement.newHistogram();
        long records = 0;
        int failures = 0;
        String firstFailure = "";
        for (int i = 0; i < count; i++) {
            threads[i].join(JOIN_TIMEOUT_MS);
            final String failure = threads[i].isAlive()
                    ? threads[i].getName() + " still running " + JOIN_TIMEOUT_MS + " ms after the end"
                    : producers[i].failure;
            if (!failure.isEmpty()) {
                failures++;
                firstFailure = firstFailure.isEmpty() ? failure : firstFailure;
            }
            all.add(producers[i].histogram);
            records += producers[i].counted;
        }
        return new Measurement(records, all, reading, syncs, Double.NaN, failures, firstFailure);
    }

    /** One producer thread and the handler of its appender's acknowledgements (both on its thread). */
    private final class Producer implements Runnable, AckHandler {
        private final Wal wal;
        private final Durability durability;
        private final UnsafeBuffer payload;
        private final Histogram histogram = Measurement.newHistogram();
        // Start time of each pending record, indexed by tag & mask; sized once the appender is open.
        private long[] startNs;
        private int mask;
        private boolean counting;
        // The clock as read by the current poll's first acknowledgement, 0 before it.
        private long observedNs;
        private long counted;
        private WalException failedWith;
        private String failure = "";

        Producer(final Wal wal, final Durability durability, final int recordBytes, final int index) {
            this.wal = wal;
            this.durability = durability;
            this.payload = new UnsafeBuffer(ByteBuffer.allocateDirect(recordBytes));
            for (int i = 0; i < recordBytes; i++) {
                payload.putByte(i, (byte) (index + i));
            }
        }

        @Override
        public void run() {
            try (AsyncAppender appender = wal.asyncAppender(CAPACITY)) {
                startNs = new long[appender.capacity()];
                mask = startNs.length - 1;
                loop(appender);
                if (failedWith != null) {
                    failure = failedWith.toString();
                }
            } catch (final RuntimeException | Error ex) {
                failure = ex.toString();
            }
        }

        private void loop(final AsyncAppender appender) {
            final int length = payload.capacity();
            long sequence = 0;
            long beginNs = 0;
            boolean retrying = false;
            while (failedWith == null) {
                final int current = phase;
                if (current == STOP) {
                    return;
                }
                counting = current == MEASURE;
                if (!retrying) {
                    beginNs = System.nanoTime();
                }
                final long lsn = appender.append(payload, 0, length, durability, sequence);
                if (lsn >= 0) {
                    startNs[(int) (sequence & mask)] = beginNs;
                    sequence++;
                    retrying = false;
                } else if (lsn == Wal.BACK_PRESSURED) {
                    retrying = true;
                } else {
                    throw new IllegalStateException("AsyncAppender.append returned " + lsn);
                }
                observedNs = 0;
                if (appender.poll(this) == 0 && retrying) {
                    Thread.onSpinWait();
                }
            }
        }

        @Override
        public void acknowledged(final long lsn, final long tag) {
            if (counting) {
                if (observedNs == 0) {
                    observedNs = System.nanoTime();
                }
                histogram.recordValue(
                        Math.min(observedNs - startNs[(int) (tag & mask)], Measurement.HIGHEST_TRACKABLE_NS));
                counted++;
            }
        }

        @Override
        public void failed(final long lsn, final long tag, final WalException cause) {
            if (failedWith == null) {
                failedWith = cause;
            }
        }
    }
}
