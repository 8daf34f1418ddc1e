package io.walden.internal.io;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.recovery.RecoveredLog;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.LogState;
import io.walden.internal.state.StatsCounters;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageCapabilities;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

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
 * <p>What a round may do depends on who runs it ({@link IoAgent}): the I/O thread's does
 * everything; an appender's ({@link Kind#CALLER}) no background work (preparation, deletes,
 * durability marks, closing); the completion thread's ({@link Kind#COMPLETION}) nothing that blocks
 * or runs user code either (no roll, no futures).
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty ({@link IoDuty}), but for {@link
 * #hasWorkHint}, a hint read by any thread, and {@link #requestClose}.
 */
final class IoRound implements CompletionHandler, IoDuty.Work {
    /** Who runs a round, which decides what it may do. */
    enum Kind {
        IO_THREAD,
        CALLER,
        COMPLETION
    }

    private static final int POLL_LIMIT = 64;

    private final IoShared shared;
    private final StorageSession session;
    private final LogBuffer logBuffer;
    private final LogState state;
    private final IoPositions positions;
    private final long segmentCapacityBytes;
    private final boolean writesDurable;
    // The stages, built here and used by no one else; package-private for the stage tests (IoPath).
    final SegmentPreparer preparer;
    final SegmentTruncation truncation;
    final FrameScanner scanner;
    final WriteStage writes;
    final DurabilityMarker marker;
    final SyncStage syncs;
    final SegmentRoller roller;
    final FailStop failStop;
    final GroupSeal seal;

    // Whether the round in progress runs on the completion thread, where user code must not run.
    private boolean completionRound;
    // Where the log ends once closing began (the log buffer's tail closed), else -1.
    private long finalTailPosition = -1;
    // When closing gives up waiting for space, and why it did, if it did. I/O thread.
    private final CloseSpaceWait closeSpaceWait;
    private volatile WalException closeAbandonment;
    // Shared: set by any thread, read by the duty holder.
    private volatile boolean closeRequested;

    IoRound(
            final WalConfig config,
            final StorageSession session,
            final StorageCapabilities capabilities,
            final LogBuffer logBuffer,
            final LogState state,
            final StatsCounters stats,
            final RecoveredLog recovered)
            throws IOException {
        this.shared = IoAssembly.shared(config, session, capabilities, logBuffer, state, stats, recovered);
        this.session = session;
        this.logBuffer = logBuffer;
        this.state = state;
        this.positions = shared.positions();
        this.segmentCapacityBytes = shared.segmentCapacityBytes();
        this.writesDurable = capabilities.writesDurable();
        this.closeSpaceWait = new CloseSpaceWait(config.appendTimeoutNs());
        final FreeSegments free =
                FreeSegments.find(shared.directory(), segmentCapacityBytes, config.recycledSegmentsMax());
        this.preparer = IoAssembly.preparer(shared, recovered, free, config.zeroFillSegments());
        this.writes = IoAssembly.writes(config, shared);
        this.truncation = new SegmentTruncation(
                shared,
                recovered.firstSegmentBase(),
                free,
                SegmentTruncation.spaceShort(preparer, writes, shared.directory(), segmentCapacityBytes));
        this.scanner = IoAssembly.scanner(config, shared, recovered);
        this.marker = IoAssembly.marker(shared, recovered);
        this.syncs = new SyncStage(shared, marker, IoAssembly.commitPolicy(config, shared), this::nothingElseToWrite);
        this.roller = new SegmentRoller(shared, preparer, scanner, marker, syncs);
        this.failStop = new FailStop(shared, truncation);
        this.seal = new GroupSeal(logBuffer, stats, capabilities.directIo() ? capabilities.blockSizeBytes() : 0);
    }

    IoPositions positions() {
        return positions;
    }

    /** The I/O thread starts: it prepares the segment after the active one if that is due already. */
    void start() throws IOException {
        if (roller.preparationDue()) {
            preparer.start(positions.activeEnd());
        }
    }

    /** Shuts the path down as the I/O thread stops; whether the buffers may be freed (see {@link IoShutdown}). */
    boolean shutdown(final boolean failed, final boolean handOver) {
        return new IoShutdown(shared, scanner, preparer, marker, writes).shutdown(failed, handOver);
    }

    /** A request to delete segments (retention). Any thread. */
    void submitTruncate(final TruncateRequest request) {
        truncation.request(request);
    }

    /** Whether the last sync was asked for by one waiter at most. Any thread. */
    boolean loneWriter() {
        return syncs.loneWriter();
    }

    /** Whether a sync is held for a group of waiters to come back, and until when. */
    boolean cohortHolding() {
        return syncs.cohortHolding();
    }

    long holdUntilNs() {
        return syncs.holdUntilNs();
    }

    /** Whether nothing the I/O thread would have to poll for is in flight (a header write, a write, a sync). */
    boolean quiet() {
        return !syncs.inFlight() && !writes.inFlight() && !marker.writeInFlight();
    }

    private boolean nothingElseToWrite() {
        return !writes.inFlight()
                && scanner.position() == positions.written()
                && logBuffer.tailPosition() == positions.written();
    }

    /** Asks the rounds to close the log buffer's tail and drain; the I/O thread's next round begins it. Any thread. */
    void requestClose() {
        closeRequested = true;
    }

    boolean closeRequested() {
        return closeRequested;
    }

    boolean failed() {
        return failStop.failed();
    }

    /** Whether the log buffer's tail is closed for closing, so appenders' drives stop. */
    boolean closing() {
        return finalTailPosition >= 0;
    }

    /** A completion-thread round begins or ends: failures found meanwhile leave the futures to the I/O thread. */
    void completionRound(final boolean inCompletionRound) {
        this.completionRound = inCompletionRound;
    }

    boolean reached(final long position, final boolean synced) {
        return (synced ? positions.durable() : positions.written()) >= position;
    }

    /** Whether a write or sync is in flight, whose completion carries the log on (not a write waiting for space). */
    boolean operationInFlight() {
        return writes.awaitingCompletion() || syncs.inFlight();
    }

    int drain() {
        return failStop.drain();
    }

    private boolean hasFrameToScan() {
        return scanner.hasFrameToScan(positions.submitted(), positions.released());
    }

    /** Whether, after a round on another thread, work is left that only the I/O thread does. Duty holder. */
    boolean ioThreadNeeded() {
        final long segmentEnd = positions.activeEnd();
        return failStop.failed()
                || syncs.cohortHolding()
                || hasWorkHint()
                || preparer.hasStepToSubmit()
                || writes.waitingForSpace()
                || roller.preparationDue()
                || truncation.isActive()
                || state.ackWatches().anyDue(positions.written(), positions.durable())
                || (scanner.position() == segmentEnd && positions.durable() == segmentEnd);
    }

    /** Runs one round in the fixed order, as its kind allows (class comment); an I/O error fails the log. */
    int run(final long nowNs, final Kind kind) {
        final boolean background = kind == Kind.IO_THREAD;
        marker.roundAt(nowNs);
        int workCount = session.poll(this, POLL_LIMIT);
        if (failStop.failed()) {
            return workCount;
        }
        if (background && closeRequested && finalTailPosition < 0) {
            finalTailPosition = logBuffer.closeTail();
        }
        if (background && closeRequested && abandonCloseForSpace(nowNs)) {
            return workCount;
        }
        try {
            workCount += scanner.scan(
                    positions.submitted(), positions.released(), positions.durable(), positions.activeBase());
            workCount += raiseWriteLimit();
            workCount += writes.retryForSpace(nowNs, positions.activeBase(), positions.activeHandle());
            workCount += submitWrites(kind == Kind.CALLER);
            workCount += roller.seal();
            workCount += syncs.maybeSync(
                    nowNs,
                    finalTailPosition >= 0,
                    marker.limitWaitsForSync(scanner.position(), positions.activeBase()));
            if (!syncs.cohortHolding()) {
                // Appenders wake this thread again as soon as it no longer holds a sync for a group.
                state.cohortWakeCount(0);
            }
            if (kind != Kind.COMPLETION) {
                workCount += roller.maybeRoll();
            }
            if (background) {
                if (finalTailPosition < 0 || finalTailPosition > positions.activeEnd()) {
                    // Closing stops background preparation unless the final records need the segment.
                    workCount += roller.prepare(
                            writes.inFlight() || scanner.position() != positions.submitted() || hasFrameToScan());
                }
                workCount += truncation.step(positions.activeBase());
                workCount += markDurable(nowNs);
            }
        } catch (final IOException ex) {
            fail(ex);
        }
        if (syncs.takeWakePending()) {
            state.wakeDurable();
        }
        if (kind != Kind.COMPLETION) {
            workCount += state.ackWatches().signalDue(positions.written(), positions.durable());
        }
        return workCount;
    }

    /**
     * Closing cannot write what is left while the file system is full: after waiting for space as long
     * as an append would (appendTimeoutNs), it gives up, failing the log (waiters learn it) and telling
     * the closer ({@link #closeAbandonment}). What was written stays, and the next open recovers it.
     */
    private boolean abandonCloseForSpace(final long nowNs) {
        final String shortage = state.spaceShortage();
        if (!closeSpaceWait.giveUp(nowNs, positions.written(), shortage != null)) {
            return false;
        }
        final String message = "closing the log in " + shared.directory() + " gave up after waiting "
                + TimeUnit.NANOSECONDS.toMillis(closeSpaceWait.waitNs()) + " ms (appendTimeoutNs) for space: "
                + shortage
                + ". The records from position " + positions.written() + " to " + logBuffer.tailPosition()
                + " were not written (none of them was acknowledged as WRITTEN or SYNCED); everything written"
                + " stays, and opening the log again recovers it";
        final IOException cause = new IOException(message);
        closeAbandonment = new WalException(WalException.ErrorCode.STORAGE_SPACE, message, cause);
        fail(cause);
        return true;
    }

    /** Why closing gave up for lack of space, or null. Any thread, once the I/O thread stopped. */
    WalException closeAbandonment() {
        return closeAbandonment;
    }

    private int submitWrites(final boolean appenderAlone) {
        final long scannedPosition = scanner.position();
        // A header write in flight (a mark, a raised limit, the continued flag) touches only the
        // header's block: data writes go on beside it.
        if (scannedPosition == positions.submitted() || !writes.maySubmit(positions.submitted())) {
            return 0;
        }
        if (writes.besideAllowed() && seal.maybeSeal(scannedPosition, writes.inFlight(), state.syncRequestCount())) {
            // The padding joins this group if the batch limit lets it; else it starts the next.
            scanner.scan(positions.submitted(), positions.released(), positions.durable(), positions.activeBase());
        }
        final long start = positions.submitted();
        final long end = scanner.batchEnd(start);
        if (!marker.allowsWrite(end, positions.activeBase())) {
            // The write limit's raise is on its way (raiseWriteLimit) or waits for a sync.
            return 0;
        }
        Invariants.check(
                start >= positions.activeBase() + SegmentHeaderDescriptor.HEADER_LENGTH && end <= positions.activeEnd(),
                "write [%d, %d) outside active segment %d",
                start,
                end,
                positions.activeBase());
        if (writesDurable) {
            syncs.beginWriteEvent();
        }
        writes.submit(
                start,
                end,
                padLimit(start),
                scanner.batchEndRecords(),
                scanner.position(),
                positions.activeBase(),
                positions.activeHandle(),
                writesDurable ? System.nanoTime() : 0,
                // An appender running its own record's I/O would only wait for its durable write.
                appenderAlone && writesDurable && !writes.inFlight());
        positions.submitted(end);
        seal.onSubmitted(state.syncRequestCount());
        return 1;
    }

    /**
     * How far a write from a position may pad its last page ({@link PagePadding}): not past the active
     * segment, its durable write limit, or the bytes of the log buffer that map to positions from there
     * without wrapping and without reaching space not yet released.
     */
    private long padLimit(final long start) {
        final long bufferEnd = Math.min(
                positions.released() + logBuffer.capacityBytes(),
                start + logBuffer.capacityBytes() - logBuffer.offset(start));
        return Math.min(Math.min(positions.activeEnd(), marker.writeLimitPosition(positions.activeBase())), bufferEnd);
    }

    private int raiseWriteLimit() {
        final long waitingEnd = scanner.position();
        if (waitingEnd == positions.submitted()) {
            return 0;
        }
        return marker.maybeRaiseLimit(waitingEnd, positions.activeBase(), positions.activeHandle());
    }

    private int markDurable(final long nowNs) {
        if (!marker.due(nowNs, positions.durable(), positions.durableSinceNs(), scanner.provenPosition())
                || finalTailPosition >= 0
                || writes.inFlight()
                || scanner.position() != positions.submitted()
                || hasFrameToScan()) {
            return 0;
        }
        return marker.write(positions.durable(), positions.activeBase(), positions.activeHandle());
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
            // A full file system is back-pressure, not a failure, where the call changed nothing that a
            // retry would not write again: a data or header write (written again from the same bytes),
            // the next segment's preparation; a freed segment that cannot be renamed for reuse for lack
            // of space is deleted instead. A failed sync is never retried (docs/design/full-disks.md).
            final boolean handled = kind == CompletionToken.WRITE
                    ? writes.onNoSpace(token, cause)
                    : kind == CompletionToken.MARK
                            ? markerNoSpace(cause)
                            : kind == CompletionToken.PREPARE
                                    ? preparer.onFailure(cause)
                                    : kind == CompletionToken.TRUNCATE && truncation.onFailure(cause);
            if (!handled) {
                fail(cause);
            }
            return;
        }
        if (kind == CompletionToken.WRITE) {
            final WriteStage.Outcome outcome = writes.onComplete(token, result);
            if (outcome == WriteStage.Outcome.SHORT) {
                fail(writes.shortWriteFailure(token, result, positions.activeBase()));
            } else if (outcome == WriteStage.Outcome.COMPLETE) {
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
            writes.spaceFreed();
            marker.spaceFreed();
        } else if (kind == CompletionToken.MARK) {
            final String shortage = marker.spaceShortage();
            if (shortage != null) {
                state.clearWriteSpaceShortage(shortage);
            }
            final IOException shortWrite = marker.onWritten(result, positions.activeBase());
            if (shortWrite != null) {
                fail(shortWrite);
            }
        } else {
            throw new AssertionError("unknown completion token " + Long.toHexString(token));
        }
    }

    private boolean markerNoSpace(final IOException cause) {
        if (!marker.onNoSpace(cause, positions.activeBase())) {
            return false;
        }
        shared.stats().recordWriteNoSpace();
        state.writeSpaceShortage(marker.spaceShortage());
        return true;
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
                && positions.written() == end
                && (writesDurable || positions.durable() == end)
                && !syncs.inFlight()
                && !marker.writeInFlight()
                && !truncation.isActive()
                && !preparer.isOperationInFlight();
    }

    /** Whether work is waiting that the I/O thread's next round could make progress on. Any thread: a hint. */
    @Override
    public boolean hasWorkHint() {
        final boolean canSubmit = scanner.position() > positions.submitted() && writes.maySubmit(positions.submitted());
        // Closing while the log waits for space has nothing to do before the next retry: no spin.
        return (closeRequested && state.spaceShortage() == null)
                || truncation.hasPending()
                || canSubmit
                || hasFrameToScan()
                || (!syncs.inFlight()
                        && !syncs.cohortHolding()
                        && state.syncRequestPosition() > positions.durable()
                        && positions.written() > positions.durable());
    }

    void fail(final Throwable cause) {
        failStop.fail(cause, !completionRound);
    }
}
