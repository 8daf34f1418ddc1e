package io.walden.internal.io;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageSession;
import java.io.IOException;

/**
 * One round of the log's I/O, in a fixed order, and the settling of each completion it delivers:
 *
 * <pre>
 *   1 poll completions (write, sync, prepare, truncate, mark) -> onCompletion
 *   2 scan published frames (checksum, cut into a write)      FrameScanner
 *   3 raise the write limit ahead of the writes                DurabilityMarker
 *   4 submit a write below the durable limit: one in flight,   WriteStage
 *     or with O_DSYNC several, each group sealed on a block     (GroupSeal)
 *   5 seal a full segment (the log continues)                  SegmentRoller
 *   6 sync, as group commit decides                            SyncStage
 *   7 roll behind the fence        (not in a completion round) SegmentRoller
 *   8 prepare the next segment, delete segments, write the
 *     durability mark              (the I/O thread's round only)
 *   9 wake blocked waiters after a sync; complete futures (not in a completion round)
 * </pre>
 *
 * <p>What a round may do depends on who runs it ({@link IoAgent} says who): the I/O thread's does
 * everything; an appender's ({@link #CALLER}) no background work (preparation, deletes, durability
 * marks, closing); the completion thread's ({@link #COMPLETION}) nothing that blocks or runs user
 * code either: no roll, which closes a file, and no futures, whose callbacks are user code.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty ({@link IoDuty}), but for {@link
 * #hasWorkHint}, a hint read by any thread, and {@link #requestClose}.
 */
final class IoRound implements CompletionHandler, IoDuty.Work {
    /** A round of the I/O thread: everything. */
    static final int IO_THREAD = 0;
    /** A round of an appender driving its record: no background work. */
    static final int CALLER = 1;
    /** A round of the backend's completion thread: no background work, nothing that blocks or runs user code. */
    static final int COMPLETION = 2;

    private static final int POLL_LIMIT = 64;

    private final StorageSession session;
    private final LogBuffer logBuffer;
    private final LogState state;
    private final IoPositions positions;
    private final FrameScanner scanner;
    private final WriteStage writes;
    private final SyncStage syncs;
    private final DurabilityMarker marker;
    private final SegmentRoller roller;
    private final SegmentPreparer preparer;
    private final SegmentTruncation truncation;
    private final AsyncCompletions asyncCompletions;
    private final FailStop failStop;
    private final long segmentCapacityBytes;
    private final boolean writesDurable;
    private final GroupSeal seal;

    // Whether the round in progress runs on the completion thread, where user code must not run.
    private boolean completionRound;
    // Where the log ends once closing began (the log buffer's tail closed), else -1.
    private long finalTailPosition = -1;
    // Shared: set by any thread, read by the duty holder.
    private volatile boolean closeRequested;

    /**
     * Creates the rounds of one log's I/O path.
     *
     * @param parts the path's parts.
     */
    IoRound(final IoParts parts) {
        this.session = parts.session;
        this.logBuffer = parts.logBuffer;
        this.state = parts.state;
        this.positions = parts.positions;
        this.scanner = parts.scanner;
        this.writes = parts.writes;
        this.syncs = parts.syncs;
        this.marker = parts.marker;
        this.roller = parts.roller;
        this.preparer = parts.preparer;
        this.truncation = parts.truncation;
        this.asyncCompletions = parts.asyncCompletions;
        this.failStop = parts.failStop;
        this.segmentCapacityBytes = parts.segmentCapacityBytes;
        this.writesDurable = parts.session.writesDurable();
        this.seal = new GroupSeal(
                parts.logBuffer, parts.stats, parts.session.directIo() ? parts.session.blockSizeBytes() : 0);
    }

    /** Asks the rounds to close the log buffer's tail and drain; the I/O thread's next round begins it. Any thread. */
    void requestClose() {
        closeRequested = true;
    }

    /** @return whether closing was asked for. Any thread. */
    boolean closeRequested() {
        return closeRequested;
    }

    /** @return whether the log failed. */
    boolean failed() {
        return failStop.failed();
    }

    /** @return whether the log buffer's tail is closed for closing, so appenders' drives stop. */
    boolean closing() {
        return finalTailPosition >= 0;
    }

    /**
     * A round of the backend's completion thread begins or ends: failures found meanwhile leave the
     * futures to the I/O thread.
     *
     * @param inCompletionRound whether a completion round runs now.
     */
    void completionRound(final boolean inCompletionRound) {
        this.completionRound = inCompletionRound;
    }

    /**
     * Whether a position was reached.
     *
     * @param position the position.
     * @param synced durable, else written.
     * @return whether it was.
     */
    boolean reached(final long position, final boolean synced) {
        return (synced ? positions.durablePosition : positions.writtenPosition) >= position;
    }

    /** @return whether a write or sync is in flight, whose completion carries the log on. */
    boolean operationInFlight() {
        return writes.inFlight() || syncs.inFlight();
    }

    /** @return a round of a failed log: see {@link FailStop#drain}. */
    int drain() {
        return failStop.drain();
    }

    /** Whether a published frame waits that the next round would scan. */
    private boolean hasFrameToScan() {
        return scanner.hasFrameToScan(positions.submittedPosition, positions.releasedPosition);
    }

    /**
     * Whether, after a round on another thread, work is left that only the I/O thread does. Duty holder.
     *
     * @return whether the I/O thread must be woken.
     */
    boolean ioThreadNeeded() {
        final long segmentEnd = positions.activeBase + segmentCapacityBytes;
        return failStop.failed()
                || syncs.cohortHolding()
                || hasWorkHint()
                || preparer.hasStepToSubmit()
                || truncation.isActive()
                || asyncCompletions.hasWaiting()
                || (scanner.position() == segmentEnd && positions.durablePosition == segmentEnd);
    }

    /**
     * Runs one round, in the fixed order; what it may do depends on its kind (class comment). Fails the
     * log on an I/O error. Duty holder.
     *
     * @param nowNs now.
     * @param kind {@link #IO_THREAD}, {@link #CALLER} or {@link #COMPLETION}.
     * @return the work done.
     */
    int run(final long nowNs, final int kind) {
        final boolean background = kind == IO_THREAD;
        int workCount = session.poll(this, POLL_LIMIT);
        if (failStop.failed()) {
            return workCount;
        }
        if (background && closeRequested && finalTailPosition < 0) {
            finalTailPosition = logBuffer.closeTail();
        }
        try {
            workCount += scanner.scan(
                    positions.submittedPosition,
                    positions.releasedPosition,
                    positions.durablePosition,
                    positions.activeBase);
            workCount += raiseWriteLimit();
            workCount += submitWrites(kind == CALLER);
            workCount += roller.seal();
            workCount += syncs.maybeSync(
                    nowNs, finalTailPosition >= 0, marker.limitWaitsForSync(scanner.position(), positions.activeBase));
            if (!syncs.cohortHolding()) {
                // Appenders wake this thread again as soon as it no longer holds a sync for a group.
                state.cohortWakeCount(0);
            }
            if (kind != COMPLETION) {
                workCount += roller.maybeRoll();
            }
            if (background) {
                if (finalTailPosition < 0 || finalTailPosition > positions.activeBase + segmentCapacityBytes) {
                    // Closing stops background preparation unless the final records need the segment.
                    workCount += roller.prepare(
                            writes.inFlight() || scanner.position() != positions.submittedPosition || hasFrameToScan());
                }
                workCount += truncation.step(positions.activeBase);
                workCount += markDurable(nowNs);
            }
        } catch (final IOException ex) {
            fail(ex);
        }
        if (syncs.takeWakePending()) {
            state.wakeDurable();
        }
        if (kind != COMPLETION) {
            workCount += asyncCompletions.complete(positions.writtenPosition, positions.durablePosition);
        }
        return workCount;
    }

    /**
     * Submits the next group write, if one may go.
     *
     * @param appenderAlone whether this round runs on an appender driving its own record's I/O.
     * @return the work done.
     */
    private int submitWrites(final boolean appenderAlone) {
        final long scannedPosition = scanner.position();
        // A header write in flight (a mark, a raised limit, the continued flag) touches only the
        // header's block: data writes go on beside it.
        if (scannedPosition == positions.submittedPosition || !writes.maySubmit(positions.submittedPosition)) {
            return 0;
        }
        if (writes.besideAllowed() && seal.maybeSeal(scannedPosition, writes.inFlight(), state.syncRequestCount())) {
            // The padding joins this group if the batch limit lets it; else it starts the next.
            scanner.scan(
                    positions.submittedPosition,
                    positions.releasedPosition,
                    positions.durablePosition,
                    positions.activeBase);
        }
        final long start = positions.submittedPosition;
        final long end = scanner.batchEnd(start);
        if (!marker.allowsWrite(end, positions.activeBase)) {
            // The write limit's raise is on its way (raiseWriteLimit) or waits for a sync.
            return 0;
        }
        Invariants.check(
                start >= positions.activeBase + SegmentHeaderDescriptor.HEADER_LENGTH
                        && end <= positions.activeBase + segmentCapacityBytes,
                "write [%d, %d) outside active segment %d",
                start,
                end,
                positions.activeBase);
        if (writesDurable) {
            syncs.beginWriteEvent();
        }
        writes.submit(
                start,
                end,
                scanner.batchEndRecords(),
                scanner.position(),
                positions.activeBase,
                positions.activeHandle,
                writesDurable ? System.nanoTime() : 0,
                // An appender running its own record's I/O would only wait for its durable write.
                appenderAlone && writesDurable && !writes.inFlight());
        positions.submittedPosition = end;
        seal.onSubmitted(state.syncRequestCount());
        return 1;
    }

    /** Raises the write limit ahead of the frames waiting to be written (see {@link DurabilityMarker}). */
    private int raiseWriteLimit() {
        final long waitingEnd = scanner.position();
        if (waitingEnd == positions.submittedPosition) {
            return 0;
        }
        return marker.maybeRaiseLimit(waitingEnd, positions.activeBase, positions.activeHandle);
    }

    /** Writes the durability mark when the log has gone idle (see {@link DurabilityMarker}). */
    private int markDurable(final long nowNs) {
        if (!marker.due(nowNs, positions.durablePosition, positions.durableSinceNs, scanner.provenPosition())
                || finalTailPosition >= 0
                || writes.inFlight()
                || scanner.position() != positions.submittedPosition
                || hasFrameToScan()) {
            return 0;
        }
        return marker.write(positions.durablePosition, positions.activeBase, positions.activeHandle);
    }

    @Override
    public void onCompletion(final long token, final long result, final IOException failure) {
        if (failStop.failed()) {
            // Fail-stop: a completion delivered after the failure, even in the same poll, is not
            // acknowledged.
            return;
        }
        final long kind = CompletionToken.kind(token);
        if (failure != null || result < 0) {
            final IOException cause =
                    failure != null ? failure : new IOException("operation failed with result " + result);
            // A full file system while the next segment is prepared is back-pressure, not a failure.
            if (kind != CompletionToken.PREPARE || !preparer.onFailure(cause)) {
                fail(cause);
            }
            return;
        }
        if (kind == CompletionToken.WRITE) {
            final int outcome = writes.onComplete(token, result);
            if (outcome == WriteStage.SHORT) {
                fail(writes.shortWriteFailure(token, result, positions.activeBase));
            } else if (outcome == WriteStage.COMPLETE) {
                // Only the prefix of completed writes: a write that completed ahead of an earlier one
                // waits for it.
                while (writes.retireOldest()) {
                    if (writes.publishWritten() && writesDurable) {
                        syncs.onDurableWrite(writes.submitNs());
                    }
                }
            }
        } else if (kind == CompletionToken.SYNC) {
            syncs.onComplete();
        } else if (kind == CompletionToken.PREPARE) {
            try {
                preparer.onCompletion(result);
            } catch (final IOException ex) {
                fail(ex);
            }
        } else if (kind == CompletionToken.TRUNCATE) {
            truncation.onCompletion();
        } else if (kind == CompletionToken.MARK) {
            final IOException shortWrite = marker.onWritten(result, positions.activeBase);
            if (shortWrite != null) {
                fail(shortWrite);
            }
        } else {
            throw new AssertionError("unknown completion token " + Long.toHexString(token));
        }
    }

    boolean isClosable() {
        if (failStop.failed()) {
            return true;
        }
        if (finalTailPosition < 0) {
            return false;
        }
        // A tail that ends exactly at a segment's end may already have rolled into the next
        // segment, whose first frame position is then where everything stands.
        final long end = (finalTailPosition & (segmentCapacityBytes - 1)) == 0
                        && scanner.position() == finalTailPosition + SegmentHeaderDescriptor.HEADER_LENGTH
                ? scanner.position()
                : finalTailPosition;
        return scanner.position() == end
                && positions.writtenPosition == end
                && (writesDurable || positions.durablePosition == end)
                && !syncs.inFlight()
                && !marker.writeInFlight()
                && !truncation.isActive()
                && !preparer.isOperationInFlight();
    }

    /** Whether work is waiting that the I/O thread's next round could make progress on. Any thread: a hint. */
    @Override
    public boolean hasWorkHint() {
        final boolean canSubmit =
                scanner.position() > positions.submittedPosition && writes.maySubmit(positions.submittedPosition);
        return closeRequested
                || truncation.hasPending()
                || asyncCompletions.hasInbox()
                || canSubmit
                || hasFrameToScan()
                || (!syncs.inFlight()
                        && !syncs.cohortHolding()
                        && state.syncRequestPosition() > positions.durablePosition
                        && positions.writtenPosition > positions.durablePosition);
    }

    /**
     * Fails the log (fail-stop), once.
     *
     * @param cause the failure.
     */
    void fail(final Throwable cause) {
        failStop.fail(cause, !completionRound);
    }
}
