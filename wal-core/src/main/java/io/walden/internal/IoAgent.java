package io.walden.internal;

import io.walden.WalConfig;
import io.walden.format.FrameChecksum;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.events.FailStopEvent;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;

/**
 * The log's I/O thread: it checksums published frames, writes them from the log buffer without
 * another copy, decides when to sync (group commit), rolls segments behind a sync fence, has the
 * next segment prepared, and deletes segments on request.
 *
 * <pre>
 *   released <= written <= submitted <= scanned <= tail           (log positions)
 *   durable  <= written
 * </pre>
 *
 * <p>Group commit: {@link GroupCommitPolicy} decides when a sync starts (a request for a position not
 * durable yet, the background interval, closing, a roll; the hold for a returning group with {@link
 * WalConfig#groupReturnWait()}). This thread carries it out: a sync's durable position is the written
 * position at submission, so it never covers a write that completed after it was issued, and writes
 * continue while a sync is in flight.
 *
 * <p>Segment roll fence: no byte is written to segment n+1 before segment n is completely written
 * and synced. After a crash, damage in any segment but the newest is therefore corruption, never a
 * torn tail.
 *
 * <p>Fail-stop: the first failed operation fails the log; nothing is acknowledged after it, no sync
 * is retried, and the thread only waits for producers to finish copying before it exits.
 *
 * <p>An appender may run this work itself ({@link #driveFor}): when the session allows it, nothing
 * else waits and the I/O thread rests, a lone writer's record is scanned, written and synced on its
 * own thread, by the same code under the same rules, with no thread woken. The <em>I/O duty</em>, a
 * flag taken by compare-and-set, says who runs it: the I/O thread holds it except while it parks.
 *
 * <p>A backend that completes operations on an event loop of its own may let that thread run the
 * work that follows a completion ({@link StorageSession#completionThreadMayRunIo()}): its completion
 * signal ({@link #onCompletionSignal}) takes the duty if it is free and runs a <em>completion round</em>
 * (deliver completions, scan, write, sync, wake the waiters) there, so that a write, its sync and the
 * acknowledgement follow each other on the loop without a hand-off to this thread and back. Only work
 * that neither blocks nor runs user code runs there; for the rest (rolls, preparation, deletes,
 * durability marks, futures, closing) the loop wakes this thread. A signal that finds the duty held
 * leaves a flag ({@code completionPending}) that every holder looks at after it lets go.
 *
 * <p>Parts: {@link IoPositions} (where the I/O path stands), {@link WriteStage} (one write of
 * frames in flight), {@link SyncStage} (group commit's decisions carried out, the durable position
 * published), {@link DurabilityMarker} (the header's durability mark and clean close), {@link
 * FrameScanner}, {@link SegmentPreparer}, {@link SegmentTruncation}, {@link IoIdleStrategy}; the
 * completion token's layout is {@link CompletionToken}. This class runs the rounds, holds the duty,
 * rolls segments, and fails or shuts the log down.
 *
 * <p><b>Threading:</b> every field not marked shared, and every part above, belongs to the holder of
 * the I/O duty: the I/O thread (the {@code AgentRunner}'s thread), an appender driving its own record,
 * or the backend's completion thread in a completion round. Taking and letting go of the duty are a
 * volatile read and write, so each holder sees everything its predecessor did.
 */
public final class IoAgent implements Agent, CompletionHandler {
    private static final System.Logger LOGGER = System.getLogger(IoAgent.class.getName());
    /** What a round may do: everything (the I/O thread). */
    private static final int ROUND_IO_THREAD = 0;
    /** What a round may do: no background work (an appender driving its record). */
    private static final int ROUND_CALLER = 1;
    /**
     * What a round may do: nothing that blocks or runs user code, so no roll (it closes a file) and no
     * futures (their callbacks are user code); no background work (the backend's completion thread).
     */
    private static final int ROUND_COMPLETION = 2;

    private static final VarHandle DUTY;
    private static final int POLL_LIMIT = 64;
    /** {@link #driveFor}: the appender did not run its I/O, or left it unfinished; the caller wakes the I/O thread. */
    public static final int DRIVE_NOT_RUN = 0;
    /** {@link #driveFor}: the record reached its level. */
    public static final int DRIVE_REACHED = 1;
    /**
     * {@link #driveFor}: the record's write or sync is in flight and its completion carries the record
     * on (the backend's completion thread runs the I/O); the caller waits without waking anyone.
     */
    public static final int DRIVE_CARRIED_ON = 2;
    /** Most rounds an appender drives for its record: a write, its completion, a sync, its completion. */
    private static final int DRIVE_ROUNDS_MAX = 8;
    /**
     * Longest single park of the I/O thread while an appender holds the duty; the appender unparks it
     * when it lets go, so this only bounds a missed wake.
     */
    private static final long DUTY_WAIT_NS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Most blocked waiters for which the idle thread keeps yielding while a completion is due. */
    private static final int YIELD_WAITERS_MAX = 2;

    static {
        try {
            DUTY = MethodHandles.lookup().findVarHandle(IoAgent.class, "duty", int.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final StorageSession session;
    private final LogBuffer logBuffer;
    private final LogState state;
    private final StatsCounters stats;
    private final AsyncCompletions asyncCompletions;
    private final SegmentPreparer preparer;
    private final Path directory;
    private final long segmentCapacityBytes;
    private final long segmentMask;
    private final boolean directIo;
    private final boolean writesDurable;
    private final boolean callerMayRunIo;
    private final boolean completionsRunIo;
    private final long blockMask;
    private final long logId;
    // Checksums published frames and cuts them into writes.
    private final FrameScanner scanner;
    // Writes published frames, one write in flight at a time.
    private final WriteStage writes;

    // Where the I/O path stands.
    private final IoPositions positions;
    // Writes the durability mark and the clean close into the active segment's header.
    private final DurabilityMarker marker;
    // Carries out group commit's decisions and publishes the durable position.
    private final SyncStage syncs;

    // Deletes segments below a requested position (Wal.truncateBefore and retention).
    private final SegmentTruncation truncation;

    // Rolls behind the fence and paces the next segment's preparation.
    private final SegmentRoller roller;

    private boolean failed;
    // The kind of the round in progress (ROUND_*), for fail(). Duty holder.
    private int roundKind = ROUND_IO_THREAD;
    private long finalTailPosition = -1;
    // Set before closeRequested (whose volatile write publishes it) when another agent takes over the
    // log state after this one stops; read by the I/O thread as it stops.
    private boolean handOver;
    // Set once, by the I/O thread as it stops; read by the closing thread after joining it.
    private volatile boolean buffersFreeable;
    // How this thread waits when a round finds no work.
    private final IoIdleStrategy idleStrategy;

    // Shared: set by any thread, read by the I/O thread.
    private volatile boolean closeRequested;
    private volatile boolean parked;
    private volatile boolean signalled;
    private volatile Thread thread;
    // Shared: the I/O duty, 1 while held. The I/O thread holds it from construction and lets go only
    // while it parks; an appender takes it with compare-and-set to drive its own record.
    private volatile int duty = 1;
    // Shared: set by the I/O thread while it waits for the duty, so that the appender holding it
    // unparks the thread as it lets go.
    private volatile boolean dutyWanted;
    // Shared: set by a completion signal that may run a completion round (completionsRunIo); cleared by
    // the duty holder before it polls. Whoever lets go of the duty looks at it afterwards, so a
    // completion signalled while the duty was held is never left for the I/O thread's next timed wake.
    private volatile boolean completionPending;

    /**
     * Creates the agent for a recovered log.
     *
     * @param config the configuration.
     * @param session the storage session, handed over from recovery.
     * @param logBuffer the log buffer.
     * @param state the shared state.
     * @param stats the counters.
     * @param recovered what recovery found.
     */
    public IoAgent(
            final WalConfig config,
            final StorageSession session,
            final LogBuffer logBuffer,
            final LogState state,
            final StatsCounters stats,
            final RecoveredLog recovered) {
        this.session = session;
        this.logBuffer = logBuffer;
        this.state = state;
        this.stats = stats;
        this.asyncCompletions = new AsyncCompletions();
        this.directory = config.directory();
        this.segmentCapacityBytes = recovered.segmentCapacityBytes();
        this.segmentMask = segmentCapacityBytes - 1;
        final int maxBatchBytes = config.maxBatchBytes();
        this.directIo = session.directIo();
        this.writesDurable = session.writesDurable();
        this.callerMayRunIo = session.callerMayRunIo();
        this.completionsRunIo = session.completionThreadMayRunIo();
        this.idleStrategy = new IoIdleStrategy(new IdleHost(), !completionsRunIo);
        this.blockMask = session.blockSizeBytes() - 1L;
        this.logId = recovered.logId();
        this.writes = new WriteStage(session, logBuffer, stats, directory);
        Invariants.check(
                session.blockSizeBytes() <= SegmentHeaderDescriptor.HEADER_LENGTH,
                "block size %d larger than the segment header",
                session.blockSizeBytes());
        this.marker = new DurabilityMarker(session, stats, directory, (int) segmentCapacityBytes, logId);
        this.preparer = new SegmentPreparer(
                session,
                directory,
                (int) segmentCapacityBytes,
                completionsRunIo ? WalConfig.PREPARE_WRITE_BYTES : SegmentPreparer.INLINE_WRITE_BYTES,
                logId,
                CompletionToken.of(CompletionToken.PREPARE));

        this.truncation = new SegmentTruncation(
                session,
                state,
                directory,
                segmentCapacityBytes,
                recovered.firstSegmentBase(),
                CompletionToken.of(CompletionToken.TRUNCATE));
        final long endPosition = recovered.endPosition();
        this.scanner = new FrameScanner(
                logBuffer,
                new FrameChecksum(logId),
                stats,
                segmentCapacityBytes,
                maxBatchBytes,
                directIo ? session.blockSizeBytes() : 0,
                endPosition);
        this.positions = new IoPositions(
                recovered.activeSegmentBase(),
                recovered.activeSegmentHandle(),
                endPosition,
                directIo ? endPosition & ~blockMask : endPosition);
        if (recovered.nextSegmentHandle() >= 0) {
            preparer.adoptReady(positions.activeBase + segmentCapacityBytes, recovered.nextSegmentHandle());
        }
        this.syncs = new SyncStage(
                session,
                state,
                stats,
                positions,
                marker,
                new GroupCommitPolicy(
                        config.syncIntervalNs(),
                        // Written data is synced in the background once a quarter segment is unsynced,
                        // so that the roll fence (a sync of the whole segment's tail) never waits for much.
                        segmentCapacityBytes / 4,
                        config.groupWindowNs(),
                        maxBatchBytes,
                        config.groupReturnWait(),
                        System.nanoTime()),
                directory,
                segmentCapacityBytes,
                this::nothingElseToWrite);
        this.roller = new SegmentRoller(
                session,
                preparer,
                scanner,
                positions,
                marker,
                syncs,
                logBuffer,
                state,
                stats,
                directory,
                segmentCapacityBytes);
    }

    /**
     * After a BUFFERED publish: unparks the I/O thread if it is parked. Without a fence a wake can
     * be missed; the record is then written within the longest idle park ({@value
     * IoIdleStrategy#PARK_MS_MAX} ms), which BUFFERED records may wait. Any thread; one volatile read.
     */
    public void wakeIfParked() {
        if (parked) {
            wake();
        }
    }

    /** Wakes the I/O thread if it is parked. Any thread; cheap when it is running. */
    public void wake() {
        if (!signalled) {
            signalled = true;
        }
        VarHandle.fullFence();
        if (parked) {
            final Thread ioThread = thread;
            if (ioThread != null) {
                LockSupport.unpark(ioThread);
            }
        }
    }

    /**
     * The backend's completion signal. A backend whose completion thread may run the log's I/O
     * ({@link StorageSession#completionThreadMayRunIo()}) gets a completion round on that thread when
     * the duty is free; otherwise, or when the duty is held, the holder sees the completion (the I/O
     * thread is woken for it, as for any other). Any thread, including one that holds the duty and is
     * submitting (an operation that completed at once): the flag is then left for it.
     */
    public void onCompletionSignal() {
        if (!completionsRunIo) {
            wake();
            return;
        }
        completionPending = true;
        runPendingCompletions();
    }

    /**
     * Runs completion rounds while a completion is pending and the duty is free; called by every
     * thread that signals a completion or lets go of the duty, except the I/O thread, which looks at
     * the flag before it parks. Wakes the I/O thread when work is left that only it may do.
     */
    private void runPendingCompletions() {
        while (completionPending && duty == 0 && DUTY.compareAndSet(this, 0, 1)) {
            final boolean ioThreadNeeded;
            try {
                completionPending = false;
                roundKind = ROUND_COMPLETION;
                ioRound(System.nanoTime(), ROUND_COMPLETION);
            } catch (final Throwable ex) {
                fail(ex);
            } finally {
                roundKind = ROUND_IO_THREAD;
                ioThreadNeeded = ioThreadNeeded();
                duty = 0;
                if (dutyWanted) {
                    LockSupport.unpark(thread);
                }
            }
            wakeIfWorkLeft(ioThreadNeeded);
        }
    }

    /**
     * Called after letting go of the duty: wakes the I/O thread if work is left that only it does, or
     * if it parked while the duty was held and work waits now. A parking I/O thread counts no frames as
     * work while the duty is held, so a frame published meanwhile (a BUFFERED appender wakes only a
     * thread it sees parked) is left to this look. Letting go (a volatile write) comes before reading
     * parked, and the I/O thread raises parked before it reads the duty, so one of them sees the
     * other.
     */
    private void wakeIfWorkLeft(final boolean ioThreadNeeded) {
        if (ioThreadNeeded || (parked && hasWorkHint())) {
            wake();
        }
    }

    /**
     * Whether, after a completion round or an appender's drive, work is left that only the I/O thread
     * does, or that no completion will carry on. Duty holder.
     */
    private boolean ioThreadNeeded() {
        final long segmentEnd = positions.activeBase + segmentCapacityBytes;
        return failed
                || syncs.cohortHolding()
                || hasWorkHint()
                || preparer.hasStepToSubmit()
                || truncation.isActive()
                || asyncCompletions.hasWaiting()
                || (scanner.position() == segmentEnd && positions.durablePosition == segmentEnd);
    }

    /**
     * Registers an asynchronous completion. Any thread.
     *
     * @param pending the future and its position.
     */
    void addAsync(final AsyncCompletions.Pending pending) {
        asyncCompletions.add(pending);
        wake();
    }

    /**
     * Registers a future completed when a position reaches a level. Any thread.
     *
     * @param lsn the record's position.
     * @param durability WRITTEN or SYNCED.
     * @param future the future to complete with the position.
     */
    public void completeWhenReached(
            final long lsn,
            final io.walden.Durability durability,
            final java.util.concurrent.CompletableFuture<Long> future) {
        addAsync(new AsyncCompletions.Pending(lsn, durability, future));
    }

    /** Asks the thread to drain, sync and stop. Any thread. */
    public void requestClose() {
        closeRequested = true;
        wake();
    }

    /**
     * Asks the thread to drain, sync and stop, and to leave the log state open for the agent that
     * takes over the log after it ({@code Wal.truncateAfter} on an open log): waiters and readers
     * keep waiting on the same state. Any thread.
     */
    public void requestHandOver() {
        handOver = true;
        requestClose();
    }

    /**
     * Asks the thread to delete segments below a position, and waits. Called by one thread at a time.
     *
     * @param request the request.
     */
    public void submitTruncate(final TruncateRequest request) {
        truncation.request(request);
        wake();
    }

    /**
     * Appender: runs the I/O for its own record on the calling thread, if the session allows it, no
     * other thread waits on the log and the I/O duty is free (the I/O thread rests). It runs the I/O
     * thread's own rounds of work (scan every published frame, its own and any others; write them;
     * for SYNCED, sync: RocksDB's write leader for a group of one), so every rule of this class holds
     * unchanged. It stops when the position is reached, or when a round makes no progress (an
     * operation that completes on another thread, a sync that group commit holds, a roll that waits
     * for the next segment), or when the caller is interrupted; it then leaves the rest to the I/O
     * thread, which it wakes. Background work (segment preparation, deletes, durability marks) is
     * always left to the I/O thread. Allocates nothing.
     *
     * @param position the position that must be reached: the record's LSN + 1.
     * @param synced whether the record waits to be durable (SYNCED), else to be written.
     * @return {@link #DRIVE_REACHED}; {@link #DRIVE_CARRIED_ON}, when the backend's completion thread
     *     carries the record on from its write or sync in flight; else {@link #DRIVE_NOT_RUN}, which
     *     leaves the wait, and waking the I/O thread, to the caller.
     */
    public int driveFor(final long position, final boolean synced) {
        if (!callerMayRunIo
                || !syncs.loneWriter()
                || duty != 0
                || closeRequested
                || state.waiterCount() != 0
                || Thread.currentThread().isInterrupted()
                || !DUTY.compareAndSet(this, 0, 1)) {
            return DRIVE_NOT_RUN;
        }
        boolean reached = false;
        boolean carriedOn = false;
        boolean workLeft = true;
        try {
            roundKind = ROUND_CALLER;
            reached = drive(position, synced);
            // With completions that run the I/O, an operation in flight carries the record on.
            carriedOn = !reached && completionsRunIo && !failed && (writes.inFlight() || syncs.inFlight());
            workLeft = (!reached && !carriedOn) || ioThreadNeeded();
        } catch (final Throwable ex) {
            fail(ex);
        } finally {
            roundKind = ROUND_IO_THREAD;
            duty = 0;
            if (dutyWanted) {
                LockSupport.unpark(thread);
            }
        }
        wakeIfWorkLeft(workLeft);
        if (completionsRunIo) {
            runPendingCompletions();
        }
        return reached ? DRIVE_REACHED : carriedOn && !workLeft ? DRIVE_CARRIED_ON : DRIVE_NOT_RUN;
    }

    private boolean drive(final long position, final boolean synced) {
        for (int round = 0; round < DRIVE_ROUNDS_MAX && !failed && finalTailPosition < 0; round++) {
            final int workCount = ioRound(System.nanoTime(), ROUND_CALLER);
            if ((synced ? positions.durablePosition : positions.writtenPosition) >= position) {
                stats.recordRunByCaller();
                return true;
            }
            if (workCount == 0 || Thread.currentThread().isInterrupted()) {
                return false;
            }
        }
        return false;
    }

    /**
     * Creates the runner of this agent, to be started on the log's I/O thread. It ends once {@link
     * #requestClose()} was called and everything is written, synced and closed, or after a failure.
     *
     * @return the runner.
     */
    public AgentRunner newRunner() {
        return new AgentRunner(idleStrategy, this::onRunnerError, null, this);
    }

    /**
     * What the runner reports: the end of the agent (the runner hands {@link AgentTerminationException}
     * to its error handler too), or a failure of {@link #onClose()}; {@link #doWork()} and {@link
     * #onStart()} fail the log themselves.
     */
    private void onRunnerError(final Throwable throwable) {
        if (!(throwable instanceof AgentTerminationException)) {
            LOGGER.log(
                    System.Logger.Level.ERROR,
                    "the I/O thread of the Walden log in " + directory + " failed while closing",
                    throwable);
        }
    }

    @Override
    public String roleName() {
        return "walden-io-" + directory.getFileName();
    }

    @Override
    public void onStart() {
        thread = Thread.currentThread();
        try {
            preparer.start(positions.activeBase + segmentCapacityBytes);
        } catch (final Throwable ex) {
            fail(ex);
        }
    }

    /**
     * One round of the I/O thread. Every failure fails the log (fail-stop) here rather than reach the
     * runner, which would go on running rounds; a failed log only drains until it is closed.
     *
     * @return the work done.
     * @throws AgentTerminationException once the log is closable after a close request.
     */
    @Override
    public int doWork() {
        int workCount = 0;
        try {
            if (failed) {
                workCount = drainAfterFailure();
            } else {
                signalled = false;
                if (completionsRunIo) {
                    completionPending = false;
                }
                workCount = ioRound(System.nanoTime(), ROUND_IO_THREAD);
            }
        } catch (final Throwable ex) {
            fail(ex);
        }
        if (closeRequested && isClosable()) {
            throw new AgentTerminationException();
        }
        return workCount;
    }

    @Override
    public void onClose() {
        shutdown();
    }

    /**
     * One round of work: deliver completions, then scan, write and sync; except on the completion
     * thread, roll and complete futures; on the I/O thread, also prepare segments, delete them, write
     * durability marks and start closing (an appender's and the completion thread's rounds leave those
     * to it).
     */
    private int ioRound(final long nowNs, final int kind) {
        final boolean background = kind == ROUND_IO_THREAD;
        int workCount = session.poll(this, POLL_LIMIT);
        if (failed) {
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
            workCount += submitWrites();
            workCount += syncs.maybeSync(nowNs, finalTailPosition >= 0);
            if (!syncs.cohortHolding()) {
                // Appenders wake this thread again as soon as it no longer holds a sync for a group.
                state.cohortWakeCount(0);
            }
            if (kind != ROUND_COMPLETION) {
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
        if (kind != ROUND_COMPLETION) {
            workCount += asyncCompletions.complete(positions.writtenPosition, positions.durablePosition);
        }
        return workCount;
    }

    /** Whether a published frame waits that the next round would scan. */
    private boolean hasFrameToScan() {
        return scanner.hasFrameToScan(positions.submittedPosition, positions.releasedPosition);
    }

    private int submitWrites() {
        final long scannedPosition = scanner.position();
        if (scannedPosition == positions.submittedPosition || writes.inFlight() || marker.writeInFlight()) {
            return 0;
        }
        final long start = positions.submittedPosition;
        final long end = scanner.batchEnd(start);
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
                scannedPosition,
                positions.activeBase,
                positions.activeHandle,
                writesDurable ? System.nanoTime() : 0);
        positions.submittedPosition = end;
        return 1;
    }

    /** Whether no write is in flight and every frame published is written. Duty holder. */
    private boolean nothingElseToWrite() {
        return !writes.inFlight()
                && scanner.position() == positions.writtenPosition
                && logBuffer.tailPosition() == positions.writtenPosition;
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
        if (failed) {
            // Fail-stop: a completion delivered after the failure, even in the same poll, is not
            // acknowledged.
            return;
        }
        if (failure != null || result < 0) {
            fail(failure != null ? failure : new IOException("operation failed with result " + result));
            return;
        }
        final long kind = CompletionToken.kind(token);
        if (kind == CompletionToken.WRITE) {
            onWriteComplete(token, result);
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

    private void onWriteComplete(final long token, final long result) {
        final int outcome = writes.onComplete(token, result);
        if (outcome == WriteStage.SHORT) {
            fail(writes.shortWriteFailure(result, positions.activeBase));
            return;
        }
        if (outcome == WriteStage.PART_PENDING) {
            return;
        }
        positions.writtenRecords = writes.endRecords();
        final long writeEndPosition = writes.endPosition();
        if (writeEndPosition != positions.writtenPosition) {
            positions.writtenPosition = writeEndPosition;
            positions.releasedPosition = directIo ? positions.writtenPosition & ~blockMask : positions.writtenPosition;
            logBuffer.release(positions.releasedPosition);
            // Written first, so that no observer ever sees durable ahead of written.
            state.publishWritten(positions.writtenPosition);
            if (writesDurable) {
                final long newlyDurableBytes = positions.writtenPosition - positions.durablePosition;
                final long newlyDurableRecords = positions.writtenRecords - positions.durableRecords;
                positions.durablePosition = positions.writtenPosition;
                positions.durableRecords = positions.writtenRecords;
                positions.durableSinceNs = System.nanoTime();
                // A durable write is this mode's sync: its duration tells SYNCED waiters whether to yield.
                final long latencyNs = positions.durableSinceNs - writes.submitNs();
                state.recordSyncDuration(latencyNs);
                stats.recordDurableWrite(latencyNs);
                syncs.commitEvent("O_DSYNC write", newlyDurableBytes, newlyDurableRecords, 0);
                state.publishDurable(positions.durablePosition);
            }
        }
    }

    private boolean isClosable() {
        if (failed) {
            return true;
        }
        if (finalTailPosition < 0) {
            return false;
        }
        // A tail that ends exactly at a segment's end may already have rolled into the next
        // segment, whose first frame position is then where everything stands.
        final long end = (finalTailPosition & segmentMask) == 0
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

    /** Lets go of the duty and parks, unless work is waiting; takes the duty back. Duty holder. */
    private void park(final long parkNs) {
        final long holdNs =
                syncs.cohortHolding() ? Math.max(1, Math.min(parkNs, syncs.holdUntilNs() - System.nanoTime())) : parkNs;
        duty = 0;
        parkWithoutDuty(holdNs);
    }

    /**
     * Parks, not holding the duty, unless work is waiting; takes the duty back. Parked is raised
     * before the last look for work, so that work published after the look finds it raised and
     * wakes this thread. Frames count as work only while the duty is free: an appender that holds it
     * is driving them, and when it lets go it looks at parked and wakes this thread for whatever it
     * leaves (see {@link #wakeIfWorkLeft}).
     */
    private void parkWithoutDuty(final long parkNs) {
        parked = true;
        VarHandle.fullFence();
        final boolean workWaiting = signalled || completionPending || (duty == 0 && hasWorkHint());
        try {
            if (!workWaiting) {
                LockSupport.parkNanos(this, parkNs);
            }
            parked = false;
        } finally {
            takeDuty();
        }
    }

    /** The I/O thread takes the duty back, waiting while an appender drives its record. */
    private void takeDuty() {
        if (DUTY.compareAndSet(this, 0, 1)) {
            return;
        }
        dutyWanted = true;
        try {
            while (!DUTY.compareAndSet(this, 0, 1)) {
                LockSupport.parkNanos(this, DUTY_WAIT_NS);
            }
        } finally {
            dutyWanted = false;
        }
    }

    /**
     * The I/O thread as {@link IoIdleStrategy} sees it. It rests without the duty only when nothing of
     * its own is in flight and nobody is blocked on the log, so that a lone appender that comes back
     * runs its own I/O; not while group commit holds a sync for returning writers, or while waiters
     * are blocked: it then keeps scanning and writing the frames that come in.
     */
    private final class IdleHost implements IoIdleStrategy.Host {
        @Override
        public boolean mayRestWithoutDuty() {
            return callerMayRunIo
                    && (completionsRunIo || (!syncs.inFlight() && !writes.inFlight() && !marker.writeInFlight()))
                    && !syncs.cohortHolding()
                    && syncs.loneWriter()
                    && state.waiterCount() == 0;
        }

        @Override
        public boolean expectsCompletion() {
            // With many blocked waiters the processors are better left to them: they must run to
            // append the next group. Waiters that yield are not counted: they let this thread run
            // themselves, and measured at 16 and 64 yielding writers this thread's yield does not hurt.
            // Completions that run the I/O themselves need nothing from this thread.
            return !completionsRunIo
                    && (syncs.inFlight() || writes.inFlight())
                    && state.waiterCount() <= YIELD_WAITERS_MAX;
        }

        @Override
        public boolean isSignalled() {
            // A completion signalled while this thread held the duty is its own to deliver.
            return signalled || completionPending;
        }

        @Override
        public void releaseDuty() {
            duty = 0;
        }

        @Override
        public void takeDuty() {
            IoAgent.this.takeDuty();
        }

        @Override
        public void park(final long parkNs) {
            IoAgent.this.park(parkNs);
        }

        @Override
        public void parkWithoutDuty(final long parkNs) {
            IoAgent.this.parkWithoutDuty(parkNs);
        }
    }

    /** Whether work is waiting that {@link #doWork} could make progress on now. */
    private boolean hasWorkHint() {
        final boolean canSubmit = scanner.position() > positions.submittedPosition && !writes.inFlight();
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

    private void fail(final Throwable cause) {
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
            event.writtenPosition = positions.writtenPosition;
            event.durablePosition = positions.durablePosition;
            event.commit();
        }
        // Refuse appends before anyone can learn of the failure: a thread that saw an append fail
        // must never get a later append acknowledged.
        logBuffer.closeTail();
        state.fail(cause);
        if (roundKind != ROUND_COMPLETION) {
            // On the completion thread the futures' callbacks (user code) must not run: the I/O thread,
            // which that round wakes, fails them.
            asyncCompletions.failAll(state.failure());
        }
        truncation.fail(cause);
    }

    private int drainAfterFailure() {
        signalled = false;
        session.poll(DISCARD, POLL_LIMIT);
        truncation.failPending(state.failure());
        asyncCompletions.failAll(state.failure());
        return 0;
    }

    /**
     * Whether the log buffer may be freed: every claimed frame was published and no operation that
     * reads it is in flight. Valid once the thread has stopped.
     *
     * @return true if no thread or device can touch the buffer again.
     */
    public boolean buffersFreeable() {
        return buffersFreeable;
    }

    private void shutdown() {
        buffersFreeable = new IoShutdown(
                        session,
                        logBuffer,
                        scanner,
                        preparer,
                        marker,
                        writes,
                        asyncCompletions,
                        state,
                        positions,
                        directory,
                        segmentCapacityBytes)
                .shutdown(failed, handOver);
    }

    private static final CompletionHandler DISCARD = (token, result, failure) -> {};
}
