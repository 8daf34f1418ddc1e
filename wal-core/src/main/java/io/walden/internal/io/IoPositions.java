package io.walden.internal.io;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogState;

/**
 * Where the I/O path stands, in log positions: the active segment, and how far frames are released to
 * the appenders, submitted for writing, written and durable, with the record counts at the last two.
 * The stages move them only through the methods below, each of which checks the order (once per write
 * or sync; off with {@code -Dwalden.checks=false}); {@link LogState} publishes them.
 *
 * <pre>
 *   activeBase  released    durable      written     submitted   (scanned)   tail
 *   |-----------|-----------|------------|-----------|-----------|-----------|
 *                invariant: released &lt;= written, durable &lt;= written &lt;= submitted,
 *                           all within the active segment
 * </pre>
 *
 * <p>{@code released} trails {@code written} only with direct I/O, where the partial last block
 * stays in the buffer to be rewritten with more frames.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty ({@link IoDuty}).
 */
final class IoPositions {
    private final long segmentCapacityBytes;
    private long activeBase;
    private int activeHandle;
    private long releasedPosition;
    private long submittedPosition;
    private long writtenPosition;
    private long durablePosition;
    private long writtenRecords;
    private long durableRecords;
    // When the durable position last moved (see DurabilityMarker).
    private long durableSinceNs;

    /** Positions of a log that continues at {@code endPosition}, everything before it durable. */
    IoPositions(
            final long segmentCapacityBytes,
            final long activeBase,
            final int activeHandle,
            final long endPosition,
            final long releasedPosition) {
        this.segmentCapacityBytes = segmentCapacityBytes;
        this.activeBase = activeBase;
        this.activeHandle = activeHandle;
        this.releasedPosition = releasedPosition;
        this.submittedPosition = endPosition;
        this.writtenPosition = endPosition;
        this.durablePosition = endPosition;
        checkOrder();
    }

    long activeBase() {
        return activeBase;
    }

    int activeHandle() {
        return activeHandle;
    }

    long activeEnd() {
        return activeBase + segmentCapacityBytes;
    }

    long released() {
        return releasedPosition;
    }

    long submitted() {
        return submittedPosition;
    }

    long written() {
        return writtenPosition;
    }

    long durable() {
        return durablePosition;
    }

    long writtenRecords() {
        return writtenRecords;
    }

    long durableRecords() {
        return durableRecords;
    }

    long durableSinceNs() {
        return durableSinceNs;
    }

    /** Frames up to {@code end} are in a write in flight. */
    void submitted(final long end) {
        if (Invariants.ENABLED) {
            Invariants.check(end > submittedPosition, "submitted %d, then %d", submittedPosition, end);
        }
        submittedPosition = end;
        checkOrder();
    }

    /** Frames up to {@code end} ({@code records} records) are written; the buffer released up to {@code released}. */
    void written(final long end, final long records, final long released) {
        if (Invariants.ENABLED) {
            Invariants.check(end >= writtenPosition, "written %d, then %d", writtenPosition, end);
        }
        writtenPosition = end;
        writtenRecords = records;
        releasedPosition = released;
        checkOrder();
    }

    /** Frames up to {@code position} ({@code records} records) are durable, a sync having covered them. */
    void durable(final long position, final long records, final long nowNs) {
        if (Invariants.ENABLED) {
            Invariants.check(position >= durablePosition, "durable %d, then %d", durablePosition, position);
        }
        if (position != durablePosition) {
            durableSinceNs = nowNs;
        }
        durablePosition = position;
        durableRecords = records;
        checkOrder();
    }

    /** Everything written is durable: each write is durable by itself (O_DSYNC, O_DIRECT with it). */
    void durableAtWritten(final long nowNs) {
        durablePosition = writtenPosition;
        durableRecords = writtenRecords;
        durableSinceNs = nowNs;
        checkOrder();
    }

    /** The log rolled into the segment at {@code base}, open as {@code handle}: every position at its first frame. */
    void rolled(final long base, final int handle) {
        if (Invariants.ENABLED) {
            Invariants.check(
                    base == activeBase + segmentCapacityBytes && durablePosition == base,
                    "rolled to %d from segment %d with durable position %d",
                    base,
                    activeBase,
                    durablePosition);
        }
        final long firstFramePosition = base + SegmentHeaderDescriptor.HEADER_LENGTH;
        activeBase = base;
        activeHandle = handle;
        submittedPosition = firstFramePosition;
        writtenPosition = firstFramePosition;
        durablePosition = firstFramePosition;
        releasedPosition = firstFramePosition;
        checkOrder();
    }

    private void checkOrder() {
        if (Invariants.ENABLED
                && (releasedPosition > writtenPosition
                        || durablePosition > writtenPosition
                        || writtenPosition > submittedPosition
                        || releasedPosition < activeBase
                        || submittedPosition > activeBase + segmentCapacityBytes)) {
            throw new AssertionError("invariant broken: positions out of order in segment " + activeBase
                    + ": released " + releasedPosition + ", durable " + durablePosition + ", written "
                    + writtenPosition + ", submitted " + submittedPosition);
        }
    }
}
