package io.walden.internal.io;

/**
 * A request to delete the segments that lie entirely below a position.
 *
 * <p><b>Threading:</b> created and awaited by the caller; completed by the holder of the I/O duty.
 */
public final class TruncateRequest {
    private final long position;
    private volatile boolean done;
    private volatile long deletedCount;
    private volatile Throwable failure;

    public TruncateRequest(final long position) {
        this.position = position;
    }

    long position() {
        return position;
    }

    void complete(final long deleted, final Throwable cause) {
        deletedCount = deleted;
        failure = cause;
        done = true;
    }

    public boolean isDone() {
        return done;
    }

    public long deletedCount() {
        return deletedCount;
    }

    public Throwable failure() {
        return failure;
    }
}
