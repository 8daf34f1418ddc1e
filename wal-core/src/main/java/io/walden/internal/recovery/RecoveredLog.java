package io.walden.internal.recovery;

import io.walden.RecoveryReport;

/** The state recovery hands to the running log. */
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
        RecoveryReport report) {}
