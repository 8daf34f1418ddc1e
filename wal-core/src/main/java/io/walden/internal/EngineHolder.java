package io.walden.internal;

import io.walden.WalException;
import io.walden.internal.state.LogState;
import io.walden.internal.state.NoSpace;
import java.nio.file.Path;

/**
 * The engine an open log runs on now, and whether the log is still open: what appends, waits,
 * truncation, retention and close share. {@code truncateAfter} replaces the engine; every other
 * user reads it, and an appender whose engine stopped asks here whether it was replaced (claim
 * again) or the log closed (fail).
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
    // Serialises truncateAfter, truncateBefore, retention and close; final.
    private final Object closeLock = new Object();
    // Replaced only by replace(), under closeLock; read by any thread.
    private volatile LogEngine engine;
    // Set once, under closeLock; read by any thread.
    private volatile boolean closed;

    /** Holds a log's first engine. */
    public EngineHolder(final Path directory, final DirectoryLock lock, final LogEngine engine) {
        this.directory = directory;
        this.lock = lock;
        this.engine = engine;
        this.state = engine.state();
    }

    /** The engine the log runs on now. */
    public LogEngine engine() {
        return engine;
    }

    /** The log's state, shared by every engine of the log. */
    public LogState state() {
        return state;
    }

    /** The log directory. */
    public Path directory() {
        return directory;
    }

    /**
     * The lock that serialises {@code truncateAfter}, {@code truncateBefore}, retention and close; an
     * appender whose engine stopped takes it to learn whether the engine was replaced.
     */
    public Object closeLock() {
        return closeLock;
    }

    /** Whether the log was closed (by close, or after a truncation that could not finish). */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Puts the engine that continues the log in place of the stopped one. The caller holds the close
     * lock.
     */
    public void replace(final LogEngine next) {
        if (!Thread.holdsLock(closeLock)) {
            throw new IllegalStateException("the engine of the log in " + directory + " replaced without its lock");
        }
        engine = next;
    }

    /**
     * Throws unless the log is open and has not failed.
     *
     * @throws WalException {@link WalException.ErrorCode#CLOSED}, see {@link #closedException()}.
     */
    public void checkOpen() {
        if (closed || state.failure() != null) {
            throw closedException();
        }
    }

    /**
     * The exception for a call to a closed or failed log, naming the failure if there was one.
     * Allocates; for the refusal path only.
     */
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
     * Whether an engine whose log buffer refused a claim as closed was replaced by truncateAfter
     * (which holds the close lock while it replaces it: this waits for it to finish), so that the
     * claim goes to the engine after it. Cold path.
     */
    public boolean replacedAfter(final LogEngine stopped) {
        synchronized (closeLock) {
            return !closed && state.failure() == null && engine != stopped;
        }
    }

    /**
     * Where the log ends for a waiter on an engine, so that a wait beyond it is refused rather than
     * never ending: the closed tail of a closed log; none while the log is open.
     */
    public long finalPosition(final LogEngine e) {
        // An engine replaced by truncateAfter closed its buffer's tail too, but the log goes on.
        return closed && e.logBuffer().isTailClosed() ? e.logBuffer().tailPosition() : Long.MAX_VALUE;
    }

    /**
     * Drains, syncs and stops the engine, and releases the directory. Idempotent. An interrupt that
     * came while the engine stopped is kept for the caller.
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
        }
    }

    /**
     * Closes the log whose engine is stopped and could not be replaced: every waiter and appender
     * learns why, and the lock is released for the next open, which recovers the log. The caller
     * holds the close lock.
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
