package io.walden.internal.recovery;

import io.walden.RecoveryReport;

/**
 * The state recovery hands to the running log. {@code headerDeferred}: the active segment's header still
 * records the clean close at the end position, because rewriting it found no space (copy on write);
 * the running log writes it, with {@code activeWriteLimitOffset}, before any frame.
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
        boolean headerDeferred) {}
