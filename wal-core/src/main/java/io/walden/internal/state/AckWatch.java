package io.walden.internal.state;

/**
 * An {@code AsyncAppender}'s ready signal and the oldest acknowledgement its last poll left pending
 * ({@code lsn << 1 | synced}, or {@link #NONE}); the duty holder runs the signal once that is due, or the
 * log fails or closes, and not again before the next poll (docs/design/how-it-works.md: no lost wake-up).
 *
 * <p><b>Threading:</b> {@link #watch}, {@link #clear} and {@link #rearm} by the appender's owner; the
 * signalling methods by the holder of the log's I/O duty.
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
