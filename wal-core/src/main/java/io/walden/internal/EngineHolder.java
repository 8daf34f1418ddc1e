package io.walden.internal;

import io.walden.WalException;
import io.walden.internal.state.LogState;
import io.walden.internal.state.NoSpace;
import java.nio.file.Path;

/**
 * The engine an open log runs on now, and whether the log is still open: what appends, waits,
 * truncation, retention and close share. An appender whose engine stopped asks here whether it was
 * replaced (claim again) or the log closed (fail).
 *
 * <pre>
 *   Wal ──► EngineHolder ── engine (volatile) ──► LogEngine (replaced by truncateAfter)
 *               ├── closed (volatile)
 *               ├── the directory lock, released at close
 *               └── the close lock: serialises truncateAfter, truncateBefore, retention and close
 * </pre>
 *
 * <p><b>Threading:</b> the engine and the closed flag are written under the close lock and read by
 * any thread without it.
 */
public final class EngineHolder {
    private final Path directory;
    private final LogState state;
    private final DirectoryLock lock;
    private final Object closeLock = new Object();
    // Replaced only by replace(), under closeLock; read by any thread.
    private volatile LogEngine engine;
    // Set once, under closeLock; read by any thread.
    private volatile boolean closed;

    public EngineHolder(final Path directory, final DirectoryLock lock, final LogEngine engine) {
        this.directory = directory;
        this.lock = lock;
        this.engine = engine;
        this.state = engine.state();
    }

    public LogEngine engine() {
        return engine;
    }

    public LogState state() {
        return state;
    }

    public Path directory() {
        return directory;
    }

    public Object closeLock() {
        return closeLock;
    }

    public boolean isClosed() {
        return closed;
    }

    public void replace(final LogEngine next) {
        if (!Thread.holdsLock(closeLock)) {
            throw new IllegalStateException("the engine of the log in " + directory + " replaced without its lock");
        }
        engine = next;
    }

    public void checkOpen() {
        if (closed || state.failure() != null) {
            throw closedException();
        }
    }

    /** Allocates: for the refusal path only. */
    public WalException closedException() {
        final Throwable cause = state.failure();
        if (cause != null) {
            return new WalException(
                    WalException.ErrorCode.CLOSED,
                    "the log in " + directory + " failed and accepts nothing more: " + cause.getMessage()
                            + (NoSpace.isNoSpace(cause)
                                    ? ". " + NoSpace.ADVICE + "."
                                    : ". Close it and reopen it to recover."),
                    cause);
        }
        return new WalException(WalException.ErrorCode.CLOSED, "the log in " + directory + " is closed");
    }

    /**
     * Whether truncateAfter replaced the engine whose buffer refused a claim as closed, so that the
     * claim goes to the next one; waits for a replacement in progress. Cold path.
     */
    public boolean replacedAfter(final LogEngine stopped) {
        synchronized (closeLock) {
            return !closed && state.failure() == null && engine != stopped;
        }
    }

    /** The closed tail of a closed log (a wait past it is refused, not endless); none while open. */
    public long finalPosition(final LogEngine e) {
        // An engine replaced by truncateAfter closed its buffer's tail too, but the log goes on.
        return closed && e.logBuffer().isTailClosed() ? e.logBuffer().tailPosition() : Long.MAX_VALUE;
    }

    /**
     * Idempotent. An interrupt that came while the engine stopped is kept for the caller. Throws, once
     * closed, if closing gave up waiting for space.
     */
    public void close() {
        synchronized (closeLock) {
            if (closed) {
                return;
            }
            closed = true;
            final boolean interrupted = engine.stop(false);
            lock.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            final WalException abandoned = engine.agent().closeAbandonment();
            if (abandoned != null) {
                throw abandoned;
            }
        }
    }

    /**
     * Closes the log whose engine is stopped and could not be replaced: every waiter and appender
     * learns why, and the lock is released for the next open. The caller holds the close lock.
     */
    public void closeStopped(final WalException failure) {
        if (failure != null) {
            state.fail(failure);
        }
        closed = true;
        state.markClosed();
        lock.close();
    }
}
