package io.walden.internal.state;

/**
 * What an {@code AsyncAppender} with a ready signal waits for, shared with the log's I/O: the oldest
 * acknowledgement its last poll left pending, and whether the signal has run since that poll. The
 * I/O side runs the signal once that acknowledgement is due (or the log fails or closes); the poll
 * that the signal leads to clears the flag and publishes the next watch.
 *
 * <pre>
 *   watch = NONE                  no acknowledgement pending at the last poll
 *   watch = lsn &lt;&lt; 1 | synced   the oldest pending one: due once the written (synced = 0) or the
 *                                 durable (synced = 1) position passes lsn
 * </pre>
 *
 * <p>No wake-up is lost: the owner publishes the watch and then reads the positions again, the I/O
 * side publishes a position and then reads the watch, so one of them sees the other (both volatile).
 * A signal that runs for a watch the owner had already passed costs one poll that finds nothing.
 *
 * <p><b>Threading:</b> {@link #watch}, {@link #clear} and {@link #rearm} by the appender's owner;
 * {@link #signalIfDue} and {@link #signalIfWatching} by the holder of the log's I/O duty.
 */
public final class AckWatch {
    /** No acknowledgement is pending. */
    public static final long NONE = -1;

    private static final long SYNCED_BIT = 1;

    private final Runnable readySignal;

    // Written by the owner; read by the duty holder.
    private volatile long watch = NONE;
    // Set by the duty holder as it runs the signal; cleared by the owner as a poll starts.
    private volatile boolean signalled;

    public AckWatch(final Runnable readySignal) {
        this.readySignal = readySignal;
    }

    /** Owner: the oldest pending acknowledgement is the record at {@code lsn}, at that level. */
    public void watch(final long lsn, final boolean synced) {
        watch = lsn << 1 | (synced ? SYNCED_BIT : 0);
    }

    /** Owner: nothing is pending. */
    public void clear() {
        watch = NONE;
    }

    /** Owner, as a poll starts: a signal that ran before this has led here. */
    public void rearm() {
        if (signalled) {
            signalled = false;
        }
    }

    /** Whether the watched acknowledgement is due at these positions and not yet signalled. */
    boolean isDue(final long writtenPosition, final long durablePosition) {
        final long current = watch;
        if (current == NONE || signalled) {
            return false;
        }
        final long lsn = current >>> 1;
        return lsn < ((current & SYNCED_BIT) != 0 ? durablePosition : writtenPosition);
    }

    /** Duty holder: runs the signal if the watched acknowledgement is due; whether it ran. */
    boolean signalIfDue(final long writtenPosition, final long durablePosition) {
        if (!isDue(writtenPosition, durablePosition)) {
            return false;
        }
        signal();
        return true;
    }

    /** Duty holder, as the log fails or stops: runs the signal if anything is pending. */
    void signalIfWatching() {
        if (watch != NONE && !signalled) {
            signal();
        }
    }

    private void signal() {
        signalled = true;
        readySignal.run();
    }
}
