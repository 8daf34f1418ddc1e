package io.walden.internal.state;

import io.walden.LatencyHistogram;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Records latencies into the fixed buckets of {@link LatencyHistogram}, allocating nothing, while
 * any thread takes snapshots.
 *
 * <p><b>Threading:</b> one recording thread at a time (the holder of the log's I/O duty); any thread
 * takes snapshots, consistent bucket by bucket only (a value recorded meanwhile may be missing).
 */
public final class LatencyRecorder {
    private final AtomicLongArray counts = new AtomicLongArray(LatencyHistogram.BUCKET_COUNT);
    // Written by the recording thread only.
    private volatile long maxNs;

    public void record(final long valueNs) {
        // The max first: a snapshot that sees the count then sees a max at least as large.
        if (valueNs > maxNs) {
            maxNs = valueNs;
        }
        final int index = LatencyHistogram.bucketIndex(valueNs);
        counts.setRelease(index, counts.getPlain(index) + 1);
    }

    public LatencyHistogram snapshot() {
        final long[] copy = new long[LatencyHistogram.BUCKET_COUNT];
        for (int i = 0; i < copy.length; i++) {
            copy[i] = counts.getAcquire(i);
        }
        return LatencyHistogram.of(copy, maxNs);
    }
}
