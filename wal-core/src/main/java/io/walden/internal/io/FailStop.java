package io.walden.internal.io;

import io.walden.internal.events.FailStopEvent;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageSession;
import java.nio.file.Path;

/**
 * Fail-stop: the first failed operation fails the log. Appends are refused before anyone can learn of
 * the failure (a thread that saw an append fail must never get a later append acknowledged); waiters
 * and delete requests fail with the cause, and the asynchronous appenders' ready signals run; nothing is acknowledged after it and nothing is
 * retried.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty.
 */
final class FailStop {
    private static final System.Logger LOGGER = System.getLogger(FailStop.class.getName());
    private static final int POLL_LIMIT = 64;
    private static final CompletionHandler DISCARD = (token, result, failure) -> {};

    private final StorageSession session;
    private final LogBuffer logBuffer;
    private final LogState state;
    private final SegmentTruncation truncation;
    private final IoPositions positions;
    private final Path directory;
    private boolean failed;

    FailStop(final IoShared shared, final SegmentTruncation truncation) {
        this.session = shared.session();
        this.logBuffer = shared.logBuffer();
        this.state = shared.state();
        this.truncation = truncation;
        this.positions = shared.positions();
        this.directory = shared.directory();
    }

    boolean failed() {
        return failed;
    }

    /** Fails the log, once; later calls do nothing. */
    void fail(final Throwable cause, final boolean userCodeMayRun) {
        if (failed) {
            return;
        }
        failed = true;
        LOGGER.log(
                System.Logger.Level.ERROR, "Walden log in " + directory + " failed; it accepts no more appends", cause);
        final FailStopEvent event = new FailStopEvent();
        if (event.isEnabled()) {
            event.directory = directory.toString();
            event.cause = String.valueOf(cause);
            event.writtenPosition = positions.written();
            event.durablePosition = positions.durable();
            event.commit();
        }
        logBuffer.closeTail();
        state.fail(cause);
        if (userCodeMayRun) {
            state.ackWatches().signalAll();
        }
        truncation.fail(cause);
    }

    /** A round of a failed log (the I/O thread): discards the completions due, fails what was asked since. */
    int drain() {
        session.poll(DISCARD, POLL_LIMIT);
        truncation.failPending(state.failure());
        state.ackWatches().signalAll();
        return 0;
    }
}
