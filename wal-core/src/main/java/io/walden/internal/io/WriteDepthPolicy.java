package io.walden.internal.io;

import java.util.Arrays;

/**
 * Decides whether a durable write (O_DSYNC) may go beside writes already in flight: the depth rule
 * of the pipelined group commit, apart from any I/O, clock or thread. Depth pays only where the
 * device completes several flushes in about the time of one, so the policy measures
 * (docs/design/pipelined-sync.md says why):
 *
 * <pre>
 *   writes alone:   latency moving average (weight 1/8)                         aloneNs
 *   writes beside:  the median of a window of PROBE_WRITES latencies            judged per window
 *
 *   state    event                                                    next
 *   -----    -----                                                    ----
 *   OFF      FIRST_PROBE_AFTER_WRITES writes, then an interval from
 *            PROBE_INTERVAL_WRITES_MIN, doubled after each probe
 *            that failed, up to PROBE_INTERVAL_WRITES_MAX                PROBING
 *   PROBING  a window of beside writes, median <= RATIO * aloneNs     ON
 *   PROBING  a window of beside writes, median >  RATIO * aloneNs     OFF
 *   ON       each further window, judged the same way                 ON or OFF
 * </pre>
 *
 * <p>Beside writes are allowed while PROBING or ON; a probe that turns depth on resets the
 * interval. A lone writer never puts a write beside another. The bound on writes in flight is the
 * caller's ({@code WalConfig.durableWritesInFlightMax}).
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty.
 */
final class WriteDepthPolicy {
    /** Largest ratio of a beside write's median to a lone write's latency at which depth is used. */
    static final double BESIDE_LATENCY_RATIO_MAX = 1.4;
    /** Writes before the first probe: past the open's first segment preparation and the JIT's warm-up. */
    static final int FIRST_PROBE_AFTER_WRITES = 1024;

    static final int PROBE_INTERVAL_WRITES_MIN = 1024;
    static final int PROBE_INTERVAL_WRITES_MAX = 16384;
    static final int PROBE_WRITES = 16;

    private static final int AVERAGE_SHIFT = 3;

    private final boolean measured;
    private final long[] besideNs = new long[PROBE_WRITES];
    private int besideCount;
    // The moving average of writes alone, -1 until one completed.
    private long aloneNs = -1;
    private boolean on;
    private boolean probing;
    private int writesUntilProbe = FIRST_PROBE_AFTER_WRITES;
    private int probeIntervalWrites = PROBE_INTERVAL_WRITES_MIN;

    WriteDepthPolicy(final boolean measured) {
        this.measured = measured;
    }

    boolean allowsBeside() {
        return on || probing || !measured;
    }

    void onCompleted(final long latencyNs, final boolean beside) {
        if (!beside) {
            aloneNs = aloneNs < 0 ? latencyNs : aloneNs + ((latencyNs - aloneNs) >> AVERAGE_SHIFT);
        } else if (allowsBeside()) {
            besideNs[besideCount++] = latencyNs;
            if (besideCount == PROBE_WRITES) {
                judgeWindow();
                return;
            }
        }
        if (!allowsBeside() && --writesUntilProbe <= 0) {
            probing = true;
            besideCount = 0;
        }
    }

    private void judgeWindow() {
        Arrays.sort(besideNs);
        final long medianNs = besideNs[PROBE_WRITES / 2];
        final boolean wasOn = on;
        on = aloneNs > 0 && medianNs <= (long) (BESIDE_LATENCY_RATIO_MAX * aloneNs);
        probing = false;
        besideCount = 0;
        if (on) {
            probeIntervalWrites = PROBE_INTERVAL_WRITES_MIN;
        } else if (!wasOn) {
            // A probe failed: the next comes later.
            probeIntervalWrites = Math.min(PROBE_INTERVAL_WRITES_MAX, probeIntervalWrites * 2);
        }
        writesUntilProbe = probeIntervalWrites;
    }

    long aloneNs() {
        return aloneNs;
    }

    boolean on() {
        return on;
    }
}
