package io.walden.internal.io;

import io.walden.internal.events.SyncEvent;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.StorageSession;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * The sync stage: carries out {@link GroupCommitPolicy}'s decision, one data sync in flight at a time,
 * and publishes the durable position its completion proves. A sync covers only what was written when it
 * was submitted: its target is the written position then. Blocked waiters are woken after the next sync
 * is submitted ({@link #takeWakePending}), so that their next appends join it. Also records the {@link
 * SyncEvent}s (of syncs, and of O_DSYNC writes), each committed once the durable position it reports
 * has moved.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty, except {@link #loneWriter}, which any
 * thread reads.
 */
final class SyncStage {
    private final StorageSession session;
    private final LogState state;
    private final StatsCounters stats;
    private final IoPositions positions;
    private final DurabilityMarker marker;
    private final GroupCommitPolicy commitPolicy;
    private final Path directory;
    private final long segmentCapacityBytes;
    private final boolean writesDurable;
    // Whether nothing but the sync is left to do: no write in flight and nothing more to write.
    private final BooleanSupplier nothingElseToWrite;

    private boolean inFlight;
    private long targetPosition;
    private long targetRecords;
    private long startNs;
    // Whether the last decision was to hold for a returning group.
    private boolean cohortHolding;
    // Set when a sync completed and its blocked waiters are still to be woken.
    private boolean wakePending;
    // The Flight Recorder event in progress, null unless a recording has it enabled; sync requests
    // since the previous sync's submission (the event's waiters).
    private SyncEvent event;
    private long eventWaiters;
    // Shared: whether the last sync was asked for by one waiter at most (a lone writer's load).
    // Written at each sync submission; read by appenders before they try to run their own I/O, and by
    // the I/O thread before it rests without the duty. Under contention it is false, and neither
    // happens: group commit runs as it would without them.
    private volatile boolean loneWriter = true;

    SyncStage(
            final IoShared shared,
            final DurabilityMarker marker,
            final GroupCommitPolicy commitPolicy,
            final BooleanSupplier nothingElseToWrite) {
        this.session = shared.session();
        this.state = shared.state();
        this.stats = shared.stats();
        this.positions = shared.positions();
        this.marker = marker;
        this.commitPolicy = commitPolicy;
        this.directory = shared.directory();
        this.segmentCapacityBytes = shared.segmentCapacityBytes();
        this.writesDurable = shared.capabilities().writesDurable();
        this.nothingElseToWrite = nothingElseToWrite;
    }

    boolean inFlight() {
        return inFlight;
    }

    boolean cohortHolding() {
        return cohortHolding;
    }

    long holdUntilNs() {
        return commitPolicy.holdUntilNs();
    }

    /** Any thread. */
    boolean loneWriter() {
        return loneWriter;
    }

    int maybeSync(final long nowNs, final boolean closing, final boolean headerFence) {
        cohortHolding = false;
        if (inFlight || writesDurable) {
            return 0;
        }
        if (positions.written() == positions.activeEnd() && marker.writeInFlight()) {
            // The fence's sync waits for the header write (the continued flag), so that it covers it.
            return 0;
        }
        final long requestPosition = state.syncRequestPosition();
        final GroupCommitPolicy.Decision decision = commitPolicy.decide(
                nowNs,
                positions.written(),
                positions.durable(),
                requestPosition,
                state.syncRequestCount(),
                headerFence || positions.written() == positions.activeEnd(),
                closing,
                marker.awaitsSync());
        if (decision == GroupCommitPolicy.Decision.HOLD) {
            // The writers the last sync woke are coming back: they wake the I/O thread when all are.
            cohortHolding = true;
            state.cohortWakeCount(commitPolicy.groupBackAtRequestCount());
            return 0;
        }
        if (decision != GroupCommitPolicy.Decision.SYNC) {
            return 0;
        }
        inFlight = true;
        marker.onSyncSubmitted();
        targetPosition = positions.written();
        targetRecords = positions.writtenRecords();
        startNs = nowNs;
        final long requestCount = state.syncRequestCount();
        eventWaiters = commitPolicy.requestsSinceLastSubmit(requestCount);
        event = SyncEvent.beginIfEnabled();
        final boolean alone = eventWaiters == 1
                && requestPosition > positions.durable()
                && !marker.writeInFlight()
                && nothingElseToWrite.getAsBoolean();
        commitPolicy.onSyncSubmitted(requestCount);
        final boolean lone = eventWaiters <= 1;
        if (loneWriter != lone) {
            loneWriter = lone;
        }
        // With processors scarce, each hand-off to the sync thread and back waits for a time slice:
        // the duty holder runs the sync itself, as a lone writer's.
        final boolean scarce = eventWaiters > 1 && !marker.writeInFlight() && state.processorsScarce();
        if (scarce && takeWakePending()) {
            // This thread is about to block in the sync: the last sync's waiters first.
            state.wakeDurable();
        }
        if (alone || scarce) {
            session.submitSyncOnCaller(positions.activeHandle(), CompletionToken.of(CompletionToken.SYNC));
        } else {
            session.submitSync(positions.activeHandle(), CompletionToken.of(CompletionToken.SYNC));
        }
        return 1;
    }

    /** The sync in flight completed: everything below its target is durable. */
    void onComplete() {
        Invariants.check(
                targetPosition >= positions.durable() && targetPosition >= positions.activeBase(),
                "sync to %d completed with the durable position at %d, active segment %d",
                targetPosition,
                positions.durable(),
                positions.activeBase());
        inFlight = false;
        final long nowNs = System.nanoTime();
        final long newlyDurableBytes = targetPosition - positions.durable();
        final long newlyDurableRecords = targetRecords - positions.durableRecords();
        stats.recordSync(newlyDurableRecords, newlyDurableBytes, nowNs - startNs);
        state.recordSyncDuration(nowNs - startNs);
        commitPolicy.onSyncCompleted(nowNs, startNs, state.syncRequestCount());
        positions.durable(targetPosition, targetRecords, nowNs);
        // After the durable position moved: the event reports the position the sync made durable.
        commitEvent("fdatasync", newlyDurableBytes, newlyDurableRecords, eventWaiters);
        marker.onSynced();
        // Blocked waiters are woken after the next sync is submitted (end of the round).
        state.publishDurableQuietly(positions.durable());
        wakePending = true;
    }

    /** With durable writes (O_DSYNC) a completed write is this mode's sync: published as durable at once. */
    void onDurableWrite(final long writeSubmitNs) {
        final long newlyDurableBytes = positions.written() - positions.durable();
        final long newlyDurableRecords = positions.writtenRecords() - positions.durableRecords();
        positions.durableAtWritten(System.nanoTime());
        // Its duration tells SYNCED waiters whether to yield, as a sync's does.
        final long latencyNs = positions.durableSinceNs() - writeSubmitNs;
        state.recordSyncDuration(latencyNs);
        stats.recordDurableWrite(latencyNs);
        commitEvent("O_DSYNC write", newlyDurableBytes, newlyDurableRecords, 0);
        state.publishDurable(positions.durable());
    }

    boolean takeWakePending() {
        if (!wakePending) {
            return false;
        }
        wakePending = false;
        return true;
    }

    /**
     * Begins the event of a durable write (O_DSYNC) unless one is in progress: with several in flight,
     * it runs from the first submission to the durable position's next move.
     */
    void beginWriteEvent() {
        if (event == null) {
            event = SyncEvent.beginIfEnabled();
        }
    }

    /** Commits the event in progress, if any, once the durable position it reports has moved. */
    void commitEvent(final String method, final long bytes, final long records, final long waiters) {
        final SyncEvent current = event;
        if (current == null) {
            return;
        }
        event = null;
        current.end();
        if (current.shouldCommit()) {
            current.directory = directory.toString();
            current.method = method;
            current.bytes = bytes;
            current.records = records;
            current.waiters = waiters;
            current.durablePosition = positions.durable();
            current.commit();
        }
    }
}
