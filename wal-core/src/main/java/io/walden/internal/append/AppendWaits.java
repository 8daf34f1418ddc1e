package io.walden.internal.append;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.internal.EngineHolder;
import io.walden.internal.LogEngine;
import io.walden.internal.io.IoAgent;
import io.walden.internal.state.LogState;
import io.walden.internal.state.WaitFailure;

/**
 * Waits for records to reach a durability level: after an append (where the appender may run its own
 * record's I/O), for a given record, for a sync, or through a future. Each wait that needs a sync
 * counts itself as a sync request first, so that group commit sees it. Allocates nothing but on
 * failure, and for the future.
 *
 * <p><b>Threading:</b> immutable; called by any thread.
 */
public final class AppendWaits {
    /** {@link #awaitAppended} frame end for a wait that does not run the I/O itself. */
    public static final long NO_FRAME_END = -1;

    private final EngineHolder holder;
    private final LogState state;
    // How long an append waits for its level while the log waits for space for its next segment.
    private final long spaceWaitNs;

    public AppendWaits(final EngineHolder holder) {
        this(holder, Long.MAX_VALUE);
    }

    public AppendWaits(final EngineHolder holder, final long spaceWaitNs) {
        this.holder = holder;
        this.state = holder.state();
        this.spaceWaitNs = spaceWaitNs;
    }

    /** Counts an append that will wait for a sync, before its frame is published. */
    public long syncTicket(final Durability durability) {
        return durability == Durability.SYNCED ? state.countSyncRequest() : 0;
    }

    /**
     * Waits for a record to reach a level. An appender whose frame is the last claimed (and, for
     * SYNCED, whose sync request is the last) first tries to run the I/O itself, a check that fails
     * under contention without touching the I/O thread's state.
     */
    public void awaitAppended(
            final LogEngine e,
            final long lsn,
            final long frameEnd,
            final Durability durability,
            final long syncTicket) {
        if (durability == Durability.BUFFERED) {
            e.agent().wakeIfParked();
            return;
        }
        if (state.reached(durability) > lsn) {
            return;
        }
        if (durability == Durability.SYNCED) {
            state.requestSync(lsn + 1);
        }
        final IoAgent.Drive drive = e.agent().driveFor(lsn + 1, durability == Durability.SYNCED, frameEnd, syncTicket);
        if (drive == IoAgent.Drive.REACHED) {
            return;
        }
        if (drive == IoAgent.Drive.NOT_RUN && (durability != Durability.SYNCED || state.wakeNeeded(syncTicket))) {
            e.wake().run();
        }
        String shortage = null;
        try {
            while (!state.await(lsn + 1, durability, spaceWaitNs, holder.finalPosition(e))) {
                shortage = state.spaceShortage();
                if (shortage != null) {
                    break;
                }
            }
        } catch (final WalException ex) {
            throw WaitFailure.outcomeUnknown(ex, lsn, durability);
        }
        if (shortage != null) {
            throw new WalException(
                    WalException.ErrorCode.STORAGE_SPACE,
                    "the record at LSN " + lsn + " waited " + spaceWaitNs / 1_000_000 + " ms (appendTimeoutNs) to be "
                            + durability + ": " + shortage + ". The record is in the log and will be written"
                            + (durability == Durability.SYNCED ? " and synced" : "") + " once there is space,"
                            + " unless the log closes first; call await(" + lsn + ", " + durability
                            + ") to learn when",
                    null,
                    lsn);
        }
    }

    public void await(final long lsn, final Durability durability) {
        RecordLimits.checkDurability(durability);
        if (durability == Durability.BUFFERED || state.reached(durability) > lsn) {
            // Reached already: no sync request to count, which would make the group commit wait for a
            // waiter that never comes.
            return;
        }
        awaitAppended(holder.engine(), lsn, NO_FRAME_END, durability, syncTicket(durability));
    }

    public boolean await(final long lsn, final Durability durability, final long timeoutNs) {
        if (durability == Durability.BUFFERED || state.reached(durability) > lsn) {
            return true;
        }
        if (durability == Durability.SYNCED) {
            state.countSyncRequest();
            state.requestSync(lsn + 1);
        }
        final LogEngine e = holder.engine();
        e.wake().run();
        try {
            return state.await(lsn + 1, durability, timeoutNs, holder.finalPosition(e));
        } catch (final WalException ex) {
            throw WaitFailure.outcomeUnknown(ex, lsn, durability);
        }
    }

    public void sync() {
        holder.checkOpen();
        final LogEngine e = holder.engine();
        final long target = e.logBuffer().tailPosition();
        if (state.durablePosition() >= target) {
            return;
        }
        state.countSyncRequest();
        state.requestSync(target);
        e.wake().run();
        state.await(target, Durability.SYNCED, Long.MAX_VALUE, holder.finalPosition(e));
    }
}
