package io.walden.crash.follow;

import java.util.Arrays;

/**
 * Retention holds: each follower's reader position, and their minimum published in the control file
 * as the position the writer may truncate before ({@link FollowControl#confirmedPosition()}). The
 * published position only grows. A follower that joins later takes the published position as its hold
 * and its start, in one step, so the writer can never have truncated past it.
 *
 * <p><b>Threading:</b> any thread; synchronized.
 */
final class Holds {
    private static final long NO_HOLD = Long.MAX_VALUE;

    private final FollowControl control;
    private final long[] positions;
    private long published;

    /**
     * Creates holds, all unused.
     *
     * @param control where the minimum is published.
     * @param count how many followers there can be.
     */
    Holds(final FollowControl control, final int count) {
        this.control = control;
        this.positions = new long[count];
        Arrays.fill(positions, NO_HOLD);
        this.published = control.confirmedPosition();
    }

    /**
     * Takes a hold at the published position.
     *
     * @param index the hold.
     * @return the position held: where the follower may start.
     */
    synchronized long take(final int index) {
        positions[index] = published;
        return published;
    }

    /**
     * Moves a hold.
     *
     * @param index the hold.
     * @param position the follower's reader position: it has read every record below it.
     */
    synchronized void update(final int index, final long position) {
        positions[index] = position;
        long min = NO_HOLD;
        for (final long held : positions) {
            min = Math.min(min, held);
        }
        if (min != NO_HOLD && min > published) {
            published = min;
            control.publishConfirmed(min);
        }
    }

    /** @return the position last published. */
    synchronized long published() {
        return published;
    }
}
