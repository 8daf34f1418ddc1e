package io.walden.internal.io;

import java.util.concurrent.TimeUnit;

/**
 * Decides when the log syncs: the group commit rules, apart from any I/O, clock or thread. {@link
 * SyncStage} asks {@link #decide} whenever no sync is in flight and writes are not durable by
 * themselves, and reports each sync it submits and completes.
 *
 * <p>The rules, in order:
 *
 * <pre>
 *   nothing written past the durable position (and no mark due,
 *     nor a mark that a fence waits for)                         -> NONE
 *   a fence (the active segment is full and written)             -> SYNC  (the roll waits for it)
 *   closing                                                      -> SYNC
 *   no request, not periodic (interval or unsynced bytes)        -> NONE
 *   requested, the last sync woke a group (cohort > 1) that is
 *     coming back, hold credit left, no group window:
 *       before the hold's deadline, batch below maxBatchBytes, and
 *       not all of the group back (or one asks past the written) -> HOLD  (until holdUntilNs)
 *   requested, group window set: within the window and the batch
 *     below maxBatchBytes                                        -> NONE  (wait for more)
 *   otherwise                                                    -> SYNC
 * </pre>
 *
 * <p>The hold's deadline is the last sync's completion plus its duration, at most {@link
 * #COHORT_HOLD_NS_MAX}; hold credit ({@link #HOLD_CREDIT_MAX}, {@link #HOLD_MISS_COST}, {@link
 * #HOLD_RETRY_SYNCS}) stops holding where groups do not come back in time
 * (docs/design/how-it-works.md). So a lone writer never waits, a hold never lasts past its deadline, a
 * fence or a close always syncs, and nothing syncs without a reason.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty (see {@code IoDuty}).
 */
final class GroupCommitPolicy {
    enum Decision {
        NONE,
        /** Do not sync now: a group is coming back; wake the I/O thread when it is, or at the deadline. */
        HOLD,
        SYNC
    }

    /** Longest a sync waits for a returning group of waiters, whatever the last sync took. */
    static final long COHORT_HOLD_NS_MAX = TimeUnit.MILLISECONDS.toNanos(1);
    // The hold credit (class comment).
    static final int HOLD_CREDIT_MAX = 8;
    static final int HOLD_MISS_COST = 4;
    static final int HOLD_RETRY_SYNCS = 64;

    private final long syncIntervalNs;
    private final long unsyncedBytesMax;
    private final long groupWindowNs;
    private final long maxBatchBytes;
    private final boolean groupReturnWait;

    // Sync requests counted when the last two syncs were submitted; the requests the next sync waits
    // for; until when it may wait; when the last sync completed.
    private long requestsAtLastSubmit;
    private long requestsAtPreviousSubmit;
    private long cohortRequests;
    private long holdUntilNs;
    private long lastSyncNs;
    // Whether the sync being decided on has been held; the hold credit; decisions until holding is
    // tried again; since when a requested sync has waited for the group window (-1: not waiting).
    private boolean held;
    private int holdCredit = HOLD_CREDIT_MAX;
    private int holdRetryCountdown;
    private long syncWantedSinceNs = -1;

    GroupCommitPolicy(
            final long syncIntervalNs,
            final long unsyncedBytesMax,
            final long groupWindowNs,
            final long maxBatchBytes,
            final boolean groupReturnWait,
            final long nowNs) {
        this.syncIntervalNs = syncIntervalNs;
        this.unsyncedBytesMax = unsyncedBytesMax;
        this.groupWindowNs = groupWindowNs;
        this.maxBatchBytes = maxBatchBytes;
        this.groupReturnWait = groupReturnWait;
        this.lastSyncNs = nowNs;
    }

    /** Decides whether to sync now. Called only while no sync is in flight. */
    Decision decide(
            final long nowNs,
            final long writtenPosition,
            final long durablePosition,
            final long syncRequestPosition,
            final long syncRequestCount,
            final boolean fence,
            final boolean closing,
            final boolean markPending) {
        final boolean intervalDue = syncIntervalNs > 0 && nowNs - lastSyncNs >= syncIntervalNs;
        // A durability mark waits for the periodic sync when nothing else needs one; a header that a
        // fence waits for (the roll, or writes the write limit holds back) is synced at once.
        if (writtenPosition <= durablePosition && !(markPending && (intervalDue || fence))) {
            return Decision.NONE;
        }
        final boolean requested = syncRequestPosition > durablePosition;
        final boolean periodic = intervalDue || writtenPosition - durablePosition >= unsyncedBytesMax;
        if (!requested && !fence && !closing && !periodic) {
            return Decision.NONE;
        }
        if (requested
                && !fence
                && !closing
                && groupReturnWait
                && groupWindowNs == 0
                && cohortRequests > 1
                && holdCredit > 0) {
            final boolean groupBack = syncRequestCount - requestsAtLastSubmit >= cohortRequests;
            if (nowNs < holdUntilNs
                    && writtenPosition - durablePosition < maxBatchBytes
                    && (!groupBack || syncRequestPosition > writtenPosition)) {
                held = true;
                return Decision.HOLD;
            }
            if (held) {
                holdCredit = groupBack ? Math.min(HOLD_CREDIT_MAX, holdCredit + 1) : holdCredit - HOLD_MISS_COST;
                if (holdCredit <= 0) {
                    holdRetryCountdown = HOLD_RETRY_SYNCS;
                }
            }
        } else if (holdCredit <= 0 && --holdRetryCountdown <= 0) {
            holdCredit = HOLD_MISS_COST;
        }
        held = false;
        if (requested && !fence && !closing && groupWindowNs > 0) {
            if (syncWantedSinceNs < 0) {
                syncWantedSinceNs = nowNs;
            }
            if (nowNs - syncWantedSinceNs < groupWindowNs && writtenPosition - durablePosition < maxBatchBytes) {
                return Decision.NONE;
            }
        }
        syncWantedSinceNs = -1;
        return Decision.SYNC;
    }

    void onSyncSubmitted(final long syncRequestCount) {
        requestsAtPreviousSubmit = requestsAtLastSubmit;
        requestsAtLastSubmit = syncRequestCount;
    }

    /** The sync completed: the requests since the sync before it was submitted are the group it wakes. */
    void onSyncCompleted(final long nowNs, final long syncStartNs, final long syncRequestCount) {
        cohortRequests = syncRequestCount - requestsAtPreviousSubmit;
        holdUntilNs = nowNs + Math.min(COHORT_HOLD_NS_MAX, nowNs - syncStartNs);
        lastSyncNs = nowNs;
    }

    long requestsSinceLastSubmit(final long syncRequestCount) {
        return syncRequestCount - requestsAtLastSubmit;
    }

    /** The request count at which the group a {@link #HOLD} waits for is all back. */
    long groupBackAtRequestCount() {
        return requestsAtLastSubmit + cohortRequests;
    }

    long holdUntilNs() {
        return holdUntilNs;
    }

    int holdCredit() {
        return holdCredit;
    }
}
