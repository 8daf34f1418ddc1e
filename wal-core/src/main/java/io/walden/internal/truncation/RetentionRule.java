package io.walden.internal.truncation;

import io.walden.internal.state.Invariants;
import org.agrona.BitUtil;

/**
 * Where retention may cut a log: pure functions from the log's segments to the position before
 * which whole segments may be deleted (the argument of {@code truncateBefore}).
 *
 * <pre>
 *   startBase                      protected         activeBase
 *   |  seg  |  seg  |  seg  |  seg  |  seg *  |  seg  |  seg (being written)  |
 *   |<-- may go -------------------->|<-- kept, whatever the policy asks ------->|
 * </pre>
 *
 * <p>Every rule keeps the segment being written and the segment holding the protected position, and
 * never returns less than {@code startBase} (a cut there deletes nothing).
 *
 * <p><b>Threading:</b> stateless.
 */
final class RetentionRule {
    private RetentionRule() {}

    /** The cut that leaves the log's segments at most a total size. */
    public static long bySize(
            final long startBase,
            final long activeBase,
            final int segmentCapacityBytes,
            final long maxTotalBytes,
            final long protectedPosition) {
        checkSegments(startBase, activeBase, segmentCapacityBytes);
        final long keptSegments = Math.max(1, maxTotalBytes / segmentCapacityBytes);
        final long segments = (activeBase - startBase) / segmentCapacityBytes + 1;
        if (segments <= keptSegments) {
            return startBase;
        }
        return limit(
                activeBase - (keptSegments - 1) * segmentCapacityBytes,
                startBase,
                segmentCapacityBytes,
                protectedPosition);
    }

    /** Cuts at the first segment last written at or after a time (segments are written in order). */
    public static long byAge(
            final long startBase,
            final long activeBase,
            final int segmentCapacityBytes,
            final long[] lastModifiedMs,
            final long cutoffMs,
            final long protectedPosition) {
        checkSegments(startBase, activeBase, segmentCapacityBytes);
        final long segments = (activeBase - startBase) / segmentCapacityBytes + 1;
        if (lastModifiedMs.length != segments) {
            throw new IllegalArgumentException(
                    lastModifiedMs.length + " modification times for " + segments + " segments");
        }
        long cut = startBase;
        for (int i = 0; i < segments - 1 && lastModifiedMs[i] < cutoffMs; i++) {
            cut += segmentCapacityBytes;
        }
        return limit(cut, startBase, segmentCapacityBytes, protectedPosition);
    }

    private static long limit(
            final long cut, final long startBase, final int segmentCapacityBytes, final long protectedPosition) {
        final long protectedBase = Math.max(0, protectedPosition) & -(long) segmentCapacityBytes;
        return Math.max(startBase, Math.min(cut, protectedBase));
    }

    private static void checkSegments(final long startBase, final long activeBase, final int segmentCapacityBytes) {
        Invariants.check(
                segmentCapacityBytes > 0
                        && BitUtil.isPowerOfTwo(segmentCapacityBytes)
                        && startBase >= 0
                        && activeBase >= startBase
                        && (startBase & (segmentCapacityBytes - 1)) == 0
                        && (activeBase & (segmentCapacityBytes - 1)) == 0,
                "segments [%d, %d] of %d bytes",
                startBase,
                activeBase,
                segmentCapacityBytes);
    }
}
