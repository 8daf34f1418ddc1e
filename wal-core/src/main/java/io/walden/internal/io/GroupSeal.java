package io.walden.internal.io;

import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.StatsCounters;

/**
 * Ends a group of frames on a block boundary with a padding frame, so that the next group can be
 * written beside it (with direct I/O no two writes in flight touch one block: see {@link WriteStage}).
 *
 * <pre>
 *   block:   |  group k frames  | padding | |  group k+1 frames ...
 *            ^ block start                  ^ block end: the next claim starts here
 * </pre>
 *
 * <p>{@link #shouldSeal} is a pure function: seal only with direct I/O, only a group that ends inside a
 * block, and only under load (a write in flight beside which this one goes, or more than one sync
 * request since the last write), so a lone writer never pays for padding. The padding is claimed only
 * where the log buffer's tail stands at the end of the scanned frames.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty.
 */
final class GroupSeal {
    private final LogBuffer logBuffer;
    private final StatsCounters stats;
    private final int blockSizeBytes;

    // The sync requests counted when the last write was submitted.
    private long requestsAtLastWrite;

    GroupSeal(final LogBuffer logBuffer, final StatsCounters stats, final int blockSizeBytes) {
        this.logBuffer = logBuffer;
        this.stats = stats;
        this.blockSizeBytes = blockSizeBytes;
    }

    static boolean shouldSeal(
            final int blockSizeBytes,
            final long groupEnd,
            final boolean writeInFlight,
            final long requestsSinceLastWrite) {
        return blockSizeBytes > 0
                && (groupEnd & (blockSizeBytes - 1L)) != 0
                && (writeInFlight || requestsSinceLastWrite > 1);
    }

    /** Seals the group that ends at the scanned position if {@link #shouldSeal} and no claim lies after it. */
    boolean maybeSeal(final long scannedPosition, final boolean writeInFlight, final long syncRequestCount) {
        if (!shouldSeal(blockSizeBytes, scannedPosition, writeInFlight, syncRequestCount - requestsAtLastWrite)
                || logBuffer.tailPosition() != scannedPosition) {
            return false;
        }
        final int paddingBytes = logBuffer.padToBlockEnd(scannedPosition, blockSizeBytes);
        if (paddingBytes == 0) {
            return false;
        }
        stats.recordPipelinePadding(paddingBytes);
        return true;
    }

    void onSubmitted(final long syncRequestCount) {
        requestsAtLastWrite = syncRequestCount;
    }
}
