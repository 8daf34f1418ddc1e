package io.walden.crash.fault;

import io.walden.Durability;
import io.walden.Wal;
import io.walden.testing.TestRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Appender threads that append tagged records ({@link TestRecords#tagged}) with mixed durability until
 * the log refuses them or they are stopped, and add each acknowledgement to {@link Acks} after the call
 * returned. Writer tags are the thread indexes.
 *
 * <p><b>Threading:</b> started and joined by the test thread; each appender owns its random and
 * sequence; the outcome of each is published by the join.
 */
final class MixedAppenders {
    private final Thread[] threads;
    private final Throwable[] endings;
    private volatile boolean stopped;

    /**
     * Starts appenders.
     *
     * @param wal the log.
     * @param acks where acknowledgements go.
     * @param threadCount how many threads.
     * @param seed random seed.
     */
    MixedAppenders(final Wal wal, final Acks acks, final int threadCount, final long seed) {
        this.threads = new Thread[threadCount];
        this.endings = new Throwable[threadCount];
        for (int i = 0; i < threadCount; i++) {
            final int writer = i;
            threads[i] = new Thread(() -> appendLoop(wal, acks, writer, seed), "fault-appender-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
    }

    private void appendLoop(final Wal wal, final Acks acks, final int writer, final long seed) {
        final SplittableRandom random = new SplittableRandom(seed * 31 + writer);
        try {
            for (int seq = 0; !stopped; seq++) {
                final int length = TestRecords.TAG_LENGTH
                        + (random.nextInt(10) == 0
                                ? random.nextInt(FaultSetup.MAX_RECORD_BYTES - 16)
                                : random.nextInt(400));
                final byte[] payload = TestRecords.tagged(writer, seq, length);
                final int choice = random.nextInt(100);
                final Durability level;
                final long lsn;
                if (choice < 35) {
                    level = Durability.SYNCED;
                    lsn = wal.append(payload, level);
                } else if (choice < 70) {
                    level = Durability.WRITTEN;
                    lsn = wal.append(payload, level);
                } else if (choice < 90) {
                    level = Durability.BUFFERED;
                    lsn = wal.append(payload, level);
                } else {
                    lsn = wal.append(payload, Durability.BUFFERED);
                    level = random.nextBoolean() ? Durability.SYNCED : Durability.WRITTEN;
                    wal.await(lsn, level);
                }
                acks.add(new Acks.Ack(writer, seq, lsn, level));
            }
        } catch (final RuntimeException | Error ex) {
            // A WalException once the log failed; anything else is reported by the test.
            endings[writer] = ex;
        }
    }

    /** Asks the appenders to stop after their current append. */
    void stop() {
        stopped = true;
    }

    /** @return how each appender ended so far: null while it runs or if it stopped, else what it threw. */
    List<Throwable> endings() {
        final List<Throwable> result = new ArrayList<>();
        for (final Throwable ending : endings) {
            result.add(ending);
        }
        return result;
    }

    /** @return the threads, for their state. */
    Thread[] threads() {
        return threads;
    }

    /**
     * Waits for every appender to end.
     *
     * @param timeoutNs most time to wait for all.
     * @return how each ended: null if stopped, else what it threw.
     * @throws InterruptedException if interrupted.
     * @throws AssertionError if an appender is still running at the timeout.
     */
    List<Throwable> join(final long timeoutNs) throws InterruptedException {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        for (final Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNs - System.nanoTime())));
            if (thread.isAlive()) {
                throw new AssertionError(
                        thread.getName() + " still appends " + TimeUnit.NANOSECONDS.toSeconds(timeoutNs)
                                + " s later: the log neither failed nor stopped it");
            }
        }
        final List<Throwable> result = new ArrayList<>();
        for (final Throwable ending : endings) {
            result.add(ending);
        }
        return result;
    }
}
