package io.walden.internal.state;

import java.util.concurrent.TimeUnit;

/**
 * Whether the log's threads wait for processors: the rule that turns the I/O thread's measured waits
 * for a processor (from the first wake request of a park to the park's return, and the length of each
 * of its yields, during which other threads ran) into the decision to stop handing work from thread
 * to thread. A pure function.
 *
 * <p>On a machine with a free processor a parked thread runs again within tens of microseconds of
 * its wake. When other work keeps every processor busy, a woken thread waits for a time slice, a
 * millisecond or more, and each hand-off of a group commit (appender to I/O thread, I/O thread to sync
 * thread and back) pays that wait. Then the I/O thread runs a group's sync itself ({@code SyncStage}) and
 * waiters park at once, once another is blocked, instead of yielding to threads that hold the
 * processors ({@code LogState}).
 *
 * <pre>
 *   smoothed wake latency    < SCARCE_WAKE_LATENCY_NS     processors free:  hand off, waiters yield
 *                           >= SCARCE_WAKE_LATENCY_NS     processors scarce: sync on the I/O thread, park
 * </pre>
 */
public final class ProcessorScarcity {
    /** Wake-up latency from which processors count as scarce: several times a quiet machine's. */
    public static final long SCARCE_WAKE_LATENCY_NS = TimeUnit.MICROSECONDS.toNanos(200);

    /** Weight of the newest sample in the average: 1 / {@value}. */
    public static final int SMOOTHING = 8;

    private ProcessorScarcity() {}

    /** The smoothed latency after one more sample. */
    public static long smoothed(final long averageNs, final long sampleNs) {
        return averageNs + (sampleNs - averageNs) / SMOOTHING;
    }

    public static boolean scarce(final long smoothedWakeLatencyNs) {
        return smoothedWakeLatencyNs >= SCARCE_WAKE_LATENCY_NS;
    }
}
