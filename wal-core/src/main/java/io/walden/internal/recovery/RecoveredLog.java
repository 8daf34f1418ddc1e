package io.walden.internal.recovery;

import io.walden.RecoveryReport;

/**
 * The state recovery hands to the running log.
 *
 * @param logId the log identity.
 * @param segmentCapacityBytes the segment capacity.
 * @param firstSegmentBase base of the oldest segment.
 * @param activeSegmentBase base of the segment that receives the next frame.
 * @param activeSegmentHandle its open handle in the storage session.
 * @param nextSegmentHandle handle of an already prepared next segment, or -1.
 * @param endPosition where the next frame goes.
 * @param activeWriteLimitOffset the write limit that the active segment's header durably records; zero
 *     for none (the whole segment may be written).
 * @param skippedRanges pairs of [start, end) log positions that readers skip (SKIP policy).
 * @param report the recovery report.
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
        RecoveryReport report) {}
