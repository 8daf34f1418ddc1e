package io.walden.internal.state;

import java.util.Arrays;

/**
 * The watches of a log's {@code AsyncAppender}s that have a ready signal (others cost the I/O nothing).
 * A signal is user code: it runs on the duty holder, never in a backend's completion callback, and one
 * that throws is logged.
 *
 * <p><b>Threading:</b> {@link #add} and {@link #remove} by any thread (copy on write); the rest by the
 * duty holder.
 */
public final class AckWatches {
    private static final System.Logger LOGGER = System.getLogger(AckWatches.class.getName());
    private static final AckWatch[] NONE = new AckWatch[0];

    private volatile AckWatch[] watches = NONE;

    public synchronized void add(final AckWatch watch) {
        final AckWatch[] current = watches;
        final AckWatch[] next = Arrays.copyOf(current, current.length + 1);
        next[current.length] = watch;
        watches = next;
    }

    public synchronized void remove(final AckWatch watch) {
        final AckWatch[] current = watches;
        for (int i = 0; i < current.length; i++) {
            if (current[i] == watch) {
                final AckWatch[] next = new AckWatch[current.length - 1];
                System.arraycopy(current, 0, next, 0, i);
                System.arraycopy(current, i + 1, next, i, current.length - i - 1);
                watches = next;
                return;
            }
        }
    }

    /** Whether some watch is due at these positions and not signalled yet. */
    public boolean anyDue(final long writtenPosition, final long durablePosition) {
        for (final AckWatch watch : watches) {
            if (watch.isDue(writtenPosition, durablePosition)) {
                return true;
            }
        }
        return false;
    }

    /** Runs the signal of every watch due at these positions; how many ran. */
    public int signalDue(final long writtenPosition, final long durablePosition) {
        int count = 0;
        for (final AckWatch watch : watches) {
            try {
                if (watch.signalIfDue(writtenPosition, durablePosition)) {
                    count++;
                }
            } catch (final RuntimeException ex) {
                LOGGER.log(System.Logger.Level.WARNING, "an AsyncAppender's ready signal threw", ex);
            }
        }
        return count;
    }

    /** The log failed or stopped: runs the signal of every watch with something pending. */
    public void signalAll() {
        for (final AckWatch watch : watches) {
            try {
                watch.signalIfWatching();
            } catch (final RuntimeException ex) {
                LOGGER.log(System.Logger.Level.WARNING, "an AsyncAppender's ready signal threw", ex);
            }
        }
    }
}
