package io.walden.internal.recovery;

import io.walden.RecoveryReport;
import io.walden.internal.segment.PendingWrite;

/**
 * The state recovery hands to the running log. {@code headerDeferred}: rewriting the active segment's
 * header found no space (copy on write), so it may still record the clean close at the end position;
 * the running log writes it, with {@code activeWriteLimitOffset}, before any frame. {@code tailRepair}
 * (or null): the discard frame that gives up the positions past a crashed log's last frame, which
 * found no space either; the running log writes it before that header.
 */
public record RecoveredLog(
        long logId,
        int segmentCapacityBytes,
        long firstSegmentBase,
        long activeSegmentBase,
        int activeSegmentHandle,
        int nextSegmentHandle,
        long endPosition,
        int activeWriteLimitOffset,
        long[] skippedRanges,
        RecoveryReport report,
        boolean headerDeferred,
        PendingWrite tailRepair) {}
