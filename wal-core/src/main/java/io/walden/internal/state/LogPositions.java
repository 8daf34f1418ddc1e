package io.walden.internal.state;

import io.walden.Durability;
import io.walden.WalException;

/**
 * Where a log's records are visible to its readers, and the wait for more: the open log's own
 * positions ({@link LogState}), or what a read-only view finds in the files of a log another process
 * writes ({@code read.DirectoryTracker}).
 *
 * <p><b>Threading:</b> implementations are safe for concurrent readers.
 */
public interface LogPositions {
    long startPosition();

    /** The position below which records are visible at a level. */
    long visiblePosition(Durability visibility);

    /** Waits until the visible position at a level passes a position, or the time runs out. */
    boolean awaitVisible(long position, Durability visibility, long timeoutNs);

    /**
     * Damage that stops readers at a position: a read-only view that found a frame that does not
     * validate before a later segment that holds data reports it to the readers that reach it.
     */
    default WalException damageAt(final long position) {
        return null;
    }

    /**
     * Positions that {@code truncateAfter} discarded from an open log, as pairs [cut, continue): a
     * reader that reaches a cut goes on at its continue position, and one that had delivered records
     * after a cut learns that they are gone. Empty for a read-only view, whose files show every
     * truncation.
     */
    default long[] discardedRanges() {
        return NO_RANGES;
    }

    long[] NO_RANGES = new long[0];
}
