package io.walden.bench.harness;

import io.walden.AckHandler;
import io.walden.AsyncAppender;
import io.walden.Durability;
import io.walden.LatencyHistogram;
import io.walden.Wal;
import io.walden.WalException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
    /**
     * Acknowledgements each producer's appender may have pending (16 B each): enough that a saturating
     * producer keeps two syncs' worth of records in flight (docs/measurements/2026-11-29-async-durable.md
     * has the sweep); {@code -Dwalden.bench.ackCapacity} changes it.
     */
    static final int CAPACITY = Integer.getInteger("walden.bench.ackCapacity", 16_384);

    /**
     * Records per second each producer offers, 0 for as many as it can (saturating); {@code
     * -Dwalden.bench.ackRatePerSec}: latency at a load below saturation, where it is not the queue of
     * pending acknowledgements that decides it.
     */
    static final long RATE_PER_SEC = Long.getLong("walden.bench.ackRatePerSec", 0);

    /** The line with the sync durations of the measured interval, beside the result line. */
    static final String SYNC_LATENCY_PREFIX = "@@SYNC-LATENCY ";

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
        final LatencyHistogram syncLatencyBefore = wal.stats().syncLatency();
        probe.start();
        phase = MEASURE;
        TimeUnit.MILLISECONDS.sleep(scenario.measureMs());
        phase = STOP;
        final Probe.Reading reading = probe.stop();
        final long syncs = wal.stats().syncs() - syncsBefore;
        printSyncLatency(syncLatencyBefore, wal.stats().syncLatency());
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

    /** Prints the median and 99th percentile of the syncs (or durable writes) between two snapshots. */
    private static void printSyncLatency(final LatencyHistogram before, final LatencyHistogram after) {
        final long[] counts = new long[LatencyHistogram.BUCKET_COUNT];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = after.count(i) - before.count(i);
        }
        final LatencyHistogram interval = LatencyHistogram.of(counts, after.maxNs());
        System.out.println(SYNC_LATENCY_PREFIX + "count=" + interval.count() + " p50_us="
                + interval.percentileNs(50) / 1_000 + " p99_us=" + interval.percentileNs(99) / 1_000);
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
            final long intervalNs = RATE_PER_SEC > 0 ? 1_000_000_000L / RATE_PER_SEC : 0;
            final long firstNs = System.nanoTime();
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
                    if (intervalNs > 0 && !awaitTurn(appender, firstNs + sequence * intervalNs)) {
                        continue;
                    }
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

        /** At a fixed rate: polls, or parks, until the next record's time has come; whether it has. */
        private boolean awaitTurn(final AsyncAppender appender, final long dueNs) {
            if (System.nanoTime() - dueNs >= 0) {
                return true;
            }
            observedNs = 0;
            if (appender.poll(this) == 0) {
                // Parks rather than spins, so that the offered load leaves the log's threads their
                // processor time (a park lasts at least about 50 us: the records then come in bursts).
                LockSupport.parkNanos(dueNs - System.nanoTime());
            }
            return false;
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
