package io.walden.internal.io;

/**
 * When closing gives up waiting for space (a pure rule): once a shortage is reported and the written
 * position has not moved for the wait (appendTimeoutNs). The wait is measured from the last time the
 * written position moved, not from when the shortage last appeared, so a shortage that clears for a
 * moment (a retry that lands in part) does not restart it.
 *
 * <p><b>Threading:</b> the I/O thread's.
 */
final class CloseSpaceWait {
    private final long waitNs;
    private long writtenPosition = -1;
    private long writtenSinceNs;

    CloseSpaceWait(final long waitNs) {
        this.waitNs = waitNs;
    }

    long waitNs() {
        return waitNs;
    }

    /** A closing round at a time: whether to give up now. */
    boolean giveUp(final long nowNs, final long writtenPosition, final boolean spaceShort) {
        if (writtenPosition != this.writtenPosition) {
            this.writtenPosition = writtenPosition;
            writtenSinceNs = nowNs;
            return false;
        }
        return spaceShort && nowNs - writtenSinceNs >= waitNs;
    }
}
