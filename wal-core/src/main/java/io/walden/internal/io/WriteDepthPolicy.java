package io.walden.internal.io;

/**
 * Decides whether a durable write (O_DSYNC) may go beside writes already in flight: the depth rule
 * of the pipelined group commit, apart from any I/O, clock or thread.
 *
 * <p>Depth pays only on storage that completes several flushes in about the time of one (a deep queue,
 * as cloud block storage has); where it serialises them, a write beside another takes about twice as
 * long, carries fewer records, and the log does better writing one larger group at a time (measured
 * on the development machine's virtio disk: 16 writers, 128 B, 0.45x at depth 2 to 16 with io_uring
 * and direct I/O; docs/measurements/2026-11-27-pipelined-writes.md). So the policy measures instead of
 * guessing:
 *
 * <pre>
 *   latency of writes submitted alone       -> aloneNs   (moving average, weight 1/8)
 *   latency of writes submitted beside one  -> besideNs  (moving average, weight 1/8)
 *
 *   probing (PROBE_WRITES beside writes after each PROBE_INTERVAL_WRITES)   -> beside allowed
 *   no estimate of either yet                                               -> beside allowed (a probe)
 *   besideNs <= BESIDE_LATENCY_RATIO_MAX * aloneNs                          -> beside allowed
 *   otherwise                                                               -> one write at a time
 * </pre>
 *
 * <p>A lone writer never has a write to put beside another, so it is never asked. The bound on writes
 * in flight is the caller's ({@code WalConfig.durableWritesInFlightMax}).
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty.
 */
final class WriteDepthPolicy {
    /**
     * How much longer than a write alone a write beside others may take for depth to stay on. In a
     * closed loop (each writer waits for its record) one write at a time already groups everything
     * that arrived during the previous write, so depth can gain at most about 1.5x, and only while it
     * costs little latency: where it costs a fifth more, the log measured no gain (0.97x, 0.90 to
     * 1.03, on the development machine), so the bound stays under that.
     */
    static final double BESIDE_LATENCY_RATIO_MAX = 1.1;
    /** Writes, while depth is off, between two probes of it. */
    static final int PROBE_INTERVAL_WRITES = 4096;
    /** Writes beside others that a probe measures. */
    static final int PROBE_WRITES = 16;

    private static final int AVERAGE_SHIFT = 3;

    // Moving averages of the latency of writes submitted alone and beside others, -1 until measured.
    private long aloneNs = -1;
    private long besideNs = -1;
    // Beside writes the current probe still measures; writes until the next probe.
    private int probeWritesLeft = PROBE_WRITES;
    private int writesUntilProbe = PROBE_INTERVAL_WRITES;

    /** @return whether a write may be submitted beside writes in flight now. */
    boolean allowsBeside() {
        return probeWritesLeft > 0
                || aloneNs < 0
                || besideNs < 0
                || besideNs <= (long) (BESIDE_LATENCY_RATIO_MAX * aloneNs);
    }

    /**
     * A write completed.
     *
     * @param latencyNs from its submission to its completion.
     * @param beside whether it was submitted while other writes were in flight.
     */
    void onCompleted(final long latencyNs, final boolean beside) {
        final boolean probing = probeWritesLeft > 0;
        if (beside) {
            besideNs = average(besideNs, latencyNs);
            if (probeWritesLeft > 0) {
                probeWritesLeft--;
            }
        } else {
            aloneNs = average(aloneNs, latencyNs);
        }
        if (!probing && !allowsBeside() && --writesUntilProbe <= 0) {
            // Depth has been off a while: the storage, or the load, may have changed.
            writesUntilProbe = PROBE_INTERVAL_WRITES;
            probeWritesLeft = PROBE_WRITES;
            besideNs = -1;
        }
    }

    /** @return the moving average of writes alone, -1 before one completed (for tests). */
    long aloneNs() {
        return aloneNs;
    }

    /** @return the moving average of writes beside others, -1 if none measured since the last probe began. */
    long besideNs() {
        return besideNs;
    }

    private static long average(final long averageNs, final long sampleNs) {
        return averageNs < 0 ? sampleNs : averageNs + ((sampleNs - averageNs) >> AVERAGE_SHIFT);
    }
}
