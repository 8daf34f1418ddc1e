package io.walden.internal.io;

import io.walden.internal.state.LogState;

/**
 * Where the I/O path stands, in log positions: the active segment, and how far frames are released
 * to the appenders, submitted for writing, written and durable, with the record counts at the last
 * two. Shared by the I/O path's stages, which move them; published to the appenders and readers
 * through {@link LogState}.
 *
 * <pre>
 *   activeBase  released    durable      written     submitted   (scanned)   tail
 *   |-----------|-----------|------------|-----------|-----------|-----------|
 *                invariant: released &lt;= written, durable &lt;= written &lt;= submitted
 * </pre>
 *
 * <p>{@code released} trails {@code written} only with direct I/O, where the partial last block
 * stays in the buffer to be rewritten with more frames.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty (see {@link IoAgent}); taking and letting
 * go of the duty are a volatile read and write, so each holder sees what its predecessor did.
 */
final class IoPositions {
    /** Base position of the active segment. */
    long activeBase;
    /** The active segment's file handle. */
    int activeHandle;
    /** Below this the log buffer's space is released to the appenders. */
    long releasedPosition;
    /** Frames below this are written or in a write in flight. */
    long submittedPosition;
    /** Frames below this are written. */
    long writtenPosition;
    /** Frames below this are durable. */
    long durablePosition;
    /** Records below the written position. */
    long writtenRecords;
    /** Records below the durable position. */
    long durableRecords;
    /** When the durable position last moved (see {@link DurabilityMarker}). */
    long durableSinceNs;

    /**
     * Positions of a log that continues at a position, everything before it durable.
     *
     * @param activeBase the active segment's base.
     * @param activeHandle its handle.
     * @param endPosition where the log continues.
     * @param releasedPosition where the buffer's released space starts.
     */
    IoPositions(final long activeBase, final int activeHandle, final long endPosition, final long releasedPosition) {
        this.activeBase = activeBase;
        this.activeHandle = activeHandle;
        this.releasedPosition = releasedPosition;
        this.submittedPosition = endPosition;
        this.writtenPosition = endPosition;
        this.durablePosition = endPosition;
    }
}
