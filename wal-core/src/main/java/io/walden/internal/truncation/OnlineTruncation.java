package io.walden.internal.truncation;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.internal.EngineHolder;
import io.walden.internal.LogEngine;
import io.walden.internal.recovery.LogRecovery;
import io.walden.internal.recovery.RecoveredLog;
import io.walden.internal.state.LogState;
import io.walden.internal.state.NoSpace;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageBackend;
import java.io.IOException;

/**
 * {@code truncateAfter} on an open log: stops the engine (which drains, syncs and completes every
 * waiter first), truncates the files, and starts the next engine where the log continues, on the same
 * state, so that waiters and readers carry on across it. A refusal for the position restarts the files
 * as they were; any other failure closes the log, whose next open recovers it either as it was or
 * truncated.
 */
public final class OnlineTruncation {
    private final WalConfig config;
    private final StorageBackend backend;
    private final EngineHolder holder;
    private final LogState state;
    private final StatsCounters stats;

    public OnlineTruncation(
            final WalConfig config,
            final StorageBackend backend,
            final EngineHolder holder,
            final StatsCounters stats) {
        this.config = config;
        this.backend = backend;
        this.holder = holder;
        this.state = holder.state();
        this.stats = stats;
    }

    /** See {@code Wal.truncateAfter(long)}. */
    public long truncateAfter(final long lsn) {
        synchronized (holder.closeLock()) {
            holder.checkOpen();
            final LogEngine old = holder.engine();
            final long tail = old.logBuffer().tailPosition();
            if (lsn != SuffixTruncation.KEEP_NONE && (lsn < state.startPosition() || lsn >= tail)) {
                throw new WalException(
                        WalException.ErrorCode.POSITION,
                        "cannot truncate the log in " + config.directory() + " after position " + lsn
                                + ": the log holds positions " + state.startPosition() + " to " + tail
                                + " (use -1 to keep no record); nothing was changed");
            }
            final boolean interrupted = old.stop(true);
            try {
                if (state.failure() != null) {
                    holder.closeStopped(null);
                    throw holder.closedException();
                }
                try {
                    final LogEngine next = truncateAndStart(old.recovered(), lsn);
                    holder.replace(next);
                    return next.recovered().endPosition();
                } catch (final IOException ex) {
                    throw closeAfterFailure(new WalException(
                            NoSpace.errorCode(ex),
                            "truncating the log in " + config.directory() + " after position " + lsn + " failed: " + ex,
                            ex));
                } catch (final WalException ex) {
                    if (ex.errorCode() != WalException.ErrorCode.POSITION) {
                        throw closeAfterFailure(ex);
                    }
                    // Nothing changed: the log goes on as it was.
                    holder.replace(restartAfterRefusal());
                    throw ex;
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** See {@link SuffixTruncation#truncateStopped}. Under the close lock. */
    private LogEngine truncateAndStart(final RecoveredLog recovered, final long lsn) throws IOException {
        final SuffixTruncation.StoppedLog stopped = new SuffixTruncation.StoppedLog(
                recovered.logId(),
                recovered.segmentCapacityBytes(),
                state.startPosition() & -(long) recovered.segmentCapacityBytes(),
                state.durablePosition(),
                recovered.skippedRanges());
        return LogEngine.startOn(config, backend, state, stats, (session, capabilities) -> {
            final RecoveredLog next =
                    SuffixTruncation.truncateStopped(config, session, stopped, lsn, state::addDiscardedRange);
            return next != null ? next : LogRecovery.recover(config, session);
        });
    }

    /** After a truncation that changed nothing. Under the close lock. */
    private LogEngine restartAfterRefusal() {
        try {
            return LogEngine.start(config, backend, state, stats, capabilities -> {});
        } catch (final IOException ex) {
            throw closeAfterFailure(new WalException(
                    NoSpace.errorCode(ex),
                    "cannot reopen the files of the log in " + config.directory() + ": " + ex,
                    ex));
        } catch (final WalException ex) {
            throw closeAfterFailure(ex);
        }
    }

    /** See {@link EngineHolder#closeStopped}. Under the close lock. */
    private WalException closeAfterFailure(final WalException cause) {
        final WalException failure = new WalException(
                cause.errorCode(),
                cause.getMessage() + " The log is closed; reopen it (the open recovers it either as it was"
                        + " or truncated).",
                cause);
        holder.closeStopped(failure);
        return failure;
    }
}
