package io.walden.internal.state;

import java.util.concurrent.TimeUnit;

/**
 * Whether the log's threads wait for processors, from the I/O thread's measured waits for one (a
 * woken park's return, each yield's length): then the I/O thread runs a group's sync itself and
 * waiters park at once (docs/design/how-it-works.md, "Processors scarce"). A pure function.
 *
 * <pre>
 *   smoothed wake latency    < SCARCE_WAKE_LATENCY_NS     processors free:  hand off, waiters yield
 *                           >= SCARCE_WAKE_LATENCY_NS     processors scarce: sync on the I/O thread, park
 * </pre>
 */
public final class ProcessorScarcity {
    // Several times a quiet machine's wake-up latency.
    public static final long SCARCE_WAKE_LATENCY_NS = TimeUnit.MICROSECONDS.toNanos(200);

    // The newest sample weighs 1 / SMOOTHING.
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
