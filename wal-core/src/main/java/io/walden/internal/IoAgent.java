package io.walden.internal;

import io.walden.WalConfig;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.format.SegmentNames;
import io.walden.internal.events.FailStopEvent;
import io.walden.internal.events.SegmentRollEvent;
import io.walden.internal.events.SyncEvent;
import io.walden.spi.CompletionHandler;
import io.walden.spi.StorageSession;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.UnsafeBuffer;

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
 * <p><b>Threading:</b> every field not marked shared belongs to the holder of the I/O duty (the
 * "I/O thread" of the comments below): the I/O thread, or an appender driving its own record. Taking
 * and letting go of the duty are a volatile read and write, so each holder sees everything its
 * predecessor did.
 */
public final class IoAgent implements Agent, CompletionHandler {
    private static final System.Logger LOGGER = System.getLogger(IoAgent.class.getName());
    private static final int KIND_SHIFT = 56;
    private static final long KIND_WRITE = 1;
    /** Low bit of a write's token: the part that rewrites the partial last block (direct I/O). */
    private static final long WRITE_TAIL = 1;

    private static final long KIND_SYNC = 2;
    private static final long KIND_PREPARE = 3;
    private static final long KIND_TRUNCATE = 4;
    private static final long KIND_MARK = 5;
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

    private static final long CLOSE_PUBLISH_WAIT_NS = TimeUnit.SECONDS.toNanos(5);
    /**
     * How long the log must be idle, after the durable position moved past everything a frame proves,
     * before the I/O thread records it in the segment header (see {@link #markDurable}).
     */
    private static final long MARK_IDLE_NS = TimeUnit.MILLISECONDS.toNanos(1);

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
    private final long hurryDistanceBytes;
    private final long logId;
    // Checksums published frames and cuts them into writes.
    private final FrameScanner scanner;
    private final ByteBuffer writeView;
    private final UnsafeBuffer ring;
    private final AlignedBuffer scratchMemory;
    private final ByteBuffer scratchBlock;
    private final UnsafeBuffer scratch;

    private long activeBase;
    private int activeHandle;
    private long releasedPosition;
    private long submittedPosition;
    private long writtenPosition;
    private long durablePosition;
    private long writtenRecords;
    private long durableRecords;
    // When the durable position last moved: see markDurable.
    private long durableSinceNs;
    // The durability mark: the header block it writes, whether that write is in flight, the durable
    // position it records and the one the active segment's header holds, and whether a sync has yet to
    // cover the header.
    private final AlignedBuffer headerMemory;
    private final ByteBuffer headerBlock;
    private boolean markWriteInFlight;
    private long markPosition;
    private long headerDurablePosition;
    private boolean markUnsynced;
    private boolean syncCoversMark;

    // The write in flight, if any. One write at a time: a write that fails can then never be
    // followed by a later write that lands, so after any failure the file holds a prefix of the
    // log and recovery needs no special case. Writes still overlap syncs, the pipelining that counts.
    private boolean writeInFlight;
    private int writePartsPending;
    // Length of each part of the write in flight: the frames (or, with direct I/O, their whole
    // blocks) and, with direct I/O, the partial last block; the part is the token's low bit.
    private long writeFrameBytes;
    private long writeTailBytes;
    private long writeStartPosition;
    private long writeEndPosition;
    private long writeEndRecords;

    private boolean syncInFlight;
    // Set when a sync completed and its blocked waiters are still to be woken (after the next sync is
    // submitted). I/O thread only.
    private boolean durableWakePending;
    private long syncTargetPosition;
    private long syncTargetRecords;
    private long syncStartNs;
    // When to sync (group commit); whether its last decision was to hold for a returning group.
    private final GroupCommitPolicy commitPolicy;
    private boolean cohortHolding;

    // Deletes segments below a requested position (Wal.truncateBefore and retention).
    private final SegmentTruncation truncation;

    // When the write in flight was submitted, with durable writes (O_DSYNC) only. I/O thread.
    private long writeSubmitNs;

    // Flight Recorder events in progress, null unless a recording has them enabled; sync requests
    // since the previous sync's submission (the event's waiters); since when the full active segment
    // has waited for the next one, or -1. I/O thread.
    private SyncEvent syncEvent;
    private long syncEventWaiters;
    private long rollWantedSinceNs = -1;

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
    // Shared: whether the last sync was asked for by one waiter at most (a lone writer's load).
    // Written by the duty holder at each sync submission; read by appenders before they try to run
    // their own I/O, and by the I/O thread before it rests without the duty. Under contention it is
    // false, and neither happens: group commit runs as it would without them.
    private volatile boolean loneWriter = true;

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
        // Written data is synced in the background once a quarter segment is unsynced, so that
        // the roll fence (a sync of the whole segment's tail) never waits for much.
        this.hurryDistanceBytes = segmentCapacityBytes / 8;
        this.logId = recovered.logId();
        this.writeView = logBuffer.newByteBufferView();
        this.ring = logBuffer.buffer();
        Invariants.check(
                session.blockSizeBytes() <= SegmentHeaderDescriptor.HEADER_LENGTH,
                "block size %d larger than the segment header",
                session.blockSizeBytes());
        this.headerMemory = new AlignedBuffer(SegmentHeaderDescriptor.HEADER_LENGTH);
        this.headerBlock = headerMemory.buffer();
        this.scratchMemory = directIo ? new AlignedBuffer(session.blockSizeBytes()) : null;
        this.scratchBlock = directIo ? scratchMemory.buffer() : null;
        this.scratch = directIo ? new UnsafeBuffer(scratchBlock) : null;
        this.preparer = new SegmentPreparer(
                session,
                directory,
                (int) segmentCapacityBytes,
                completionsRunIo ? WalConfig.PREPARE_WRITE_BYTES : SegmentPreparer.INLINE_WRITE_BYTES,
                logId,
                KIND_PREPARE << KIND_SHIFT);

        this.truncation = new SegmentTruncation(
                session,
                state,
                directory,
                segmentCapacityBytes,
                recovered.firstSegmentBase(),
                KIND_TRUNCATE << KIND_SHIFT);
        this.activeBase = recovered.activeSegmentBase();
        this.activeHandle = recovered.activeSegmentHandle();
        final long endPosition = recovered.endPosition();
        this.scanner = new FrameScanner(
                logBuffer,
                new FrameChecksum(logId),
                stats,
                segmentCapacityBytes,
                maxBatchBytes,
                directIo ? session.blockSizeBytes() : 0,
                endPosition);
        this.releasedPosition = directIo ? endPosition & ~blockMask : endPosition;
        this.submittedPosition = endPosition;
        this.writtenPosition = endPosition;
        this.durablePosition = endPosition;
        if (recovered.nextSegmentHandle() >= 0) {
            preparer.adoptReady(activeBase + segmentCapacityBytes, recovered.nextSegmentHandle());
        }
        this.commitPolicy = new GroupCommitPolicy(
                config.syncIntervalNs(),
                segmentCapacityBytes / 4,
                config.groupWindowNs(),
                maxBatchBytes,
                config.groupReturnWait(),
                System.nanoTime());
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
        final long segmentEnd = activeBase + segmentCapacityBytes;
        return failed
                || cohortHolding
                || hasWorkHint()
                || preparer.hasStepToSubmit()
                || truncation.isActive()
                || asyncCompletions.hasWaiting()
                || (scanner.position() == segmentEnd && durablePosition == segmentEnd);
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
                || !loneWriter
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
            carriedOn = !reached && completionsRunIo && !failed && (writeInFlight || syncInFlight);
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
            if ((synced ? durablePosition : writtenPosition) >= position) {
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
            preparer.start(activeBase + segmentCapacityBytes);
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
            workCount += scanner.scan(submittedPosition, releasedPosition, durablePosition, activeBase);
            workCount += submitWrites();
            workCount += maybeSync(nowNs);
            if (!cohortHolding) {
                // Appenders wake this thread again as soon as it no longer holds a sync for a group.
                state.cohortWakeCount(0);
            }
            if (kind != ROUND_COMPLETION) {
                workCount += maybeRoll();
            }
            if (background) {
                if (finalTailPosition < 0 || finalTailPosition > activeBase + segmentCapacityBytes) {
                    // Closing stops background preparation unless the final records need the segment.
                    workCount += prepare();
                }
                workCount += truncation.step(activeBase);
                workCount += markDurable(nowNs);
            }
        } catch (final IOException ex) {
            fail(ex);
        }
        if (durableWakePending) {
            durableWakePending = false;
            state.wakeDurable();
        }
        if (kind != ROUND_COMPLETION) {
            workCount += asyncCompletions.complete(writtenPosition, durablePosition);
        }
        return workCount;
    }

    /** Whether a published frame waits that the next round would scan. */
    private boolean hasFrameToScan() {
        return scanner.hasFrameToScan(submittedPosition, releasedPosition);
    }

    private int submitWrites() {
        final long scannedPosition = scanner.position();
        if (scannedPosition == submittedPosition || writeInFlight || markWriteInFlight) {
            return 0;
        }
        final long start = submittedPosition;
        final long end = scanner.batchEnd(start);
        final long endRecords = scanner.batchEndRecords();
        // A long batch (the appenders are ahead) with direct I/O: whole blocks only. The frames past
        // the cut are written, with their block rewritten identically in place, by the next batch,
        // which is submitted as soon as this one completes.
        final boolean blockCut = end != scannedPosition;
        Invariants.check(
                start >= activeBase + SegmentHeaderDescriptor.HEADER_LENGTH && end <= activeBase + segmentCapacityBytes,
                "write [%d, %d) outside active segment %d",
                start,
                end,
                activeBase);
        final long token = KIND_WRITE << KIND_SHIFT;
        writeInFlight = true;
        if (writesDurable) {
            writeSubmitNs = System.nanoTime();
            syncEvent = SyncEvent.beginIfEnabled();
        }
        writeStartPosition = start;
        writeEndPosition = end;
        writeEndRecords = endRecords;
        if (blockCut) {
            submitBlocksWrite(start & ~blockMask, scannedPosition & ~blockMask, token);
        } else if (!directIo) {
            writePartsPending = 1;
            writeFrameBytes = end - start;
            session.submitWrite(
                    activeHandle, start - activeBase, writeView, logBuffer.offset(start), (int) (end - start), token);
        } else {
            submitDirectWrite(start, end, token);
        }
        submittedPosition = end;
        return 1;
    }

    /** Direct I/O: writes whole blocks from the log buffer, nothing else. */
    private void submitBlocksWrite(final long blockStart, final long blockEnd, final long token) {
        Invariants.check(
                blockEnd > blockStart && (blockStart & blockMask) == 0 && (blockEnd & blockMask) == 0,
                "blocks write [%d, %d)",
                blockStart,
                blockEnd);
        writePartsPending = 1;
        writeFrameBytes = blockEnd - blockStart;
        writeFromBuffer(blockStart, blockEnd, token);
    }

    /** Submits a write of log positions [start, end) of the active segment straight from the buffer. */
    private void writeFromBuffer(final long start, final long end, final long token) {
        session.submitWrite(
                activeHandle, start - activeBase, writeView, logBuffer.offset(start), (int) (end - start), token);
    }

    private void submitDirectWrite(final long start, final long end, final long token) {
        final long blockStart = start & ~blockMask;
        final long blockEnd = end & ~blockMask;
        int parts = 0;
        if (blockEnd > blockStart) {
            parts++;
        }
        if (end > blockEnd) {
            parts++;
        }
        writePartsPending = parts;
        writeFrameBytes = blockEnd - blockStart;
        writeTailBytes = scratchBlock.capacity();
        if (blockEnd > blockStart) {
            writeFromBuffer(blockStart, blockEnd, token);
        }
        if (end > blockEnd) {
            final int tailLength = (int) (end - blockEnd);
            scratch.putBytes(0, ring, logBuffer.offset(blockEnd), tailLength);
            scratch.setMemory(tailLength, scratchBlock.capacity() - tailLength, (byte) 0);
            session.submitWrite(
                    activeHandle, blockEnd - activeBase, scratchBlock, 0, scratchBlock.capacity(), token | WRITE_TAIL);
        }
    }

    private int maybeSync(final long nowNs) {
        cohortHolding = false;
        if (syncInFlight || writesDurable) {
            return 0;
        }
        final long requestPosition = state.syncRequestPosition();
        final int decision = commitPolicy.decide(
                nowNs,
                writtenPosition,
                durablePosition,
                requestPosition,
                state.syncRequestCount(),
                writtenPosition == activeBase + segmentCapacityBytes,
                finalTailPosition >= 0,
                markUnsynced && !markWriteInFlight);
        if (decision == GroupCommitPolicy.HOLD) {
            // The writers the last sync woke are coming back: they wake this thread when all are.
            cohortHolding = true;
            state.cohortWakeCount(commitPolicy.groupBackAtRequestCount());
            return 0;
        }
        if (decision != GroupCommitPolicy.SYNC) {
            return 0;
        }
        syncInFlight = true;
        syncCoversMark = markUnsynced && !markWriteInFlight;
        syncTargetPosition = writtenPosition;
        syncTargetRecords = writtenRecords;
        syncStartNs = nowNs;
        final long requestCount = state.syncRequestCount();
        syncEventWaiters = commitPolicy.requestsSinceLastSubmit(requestCount);
        syncEvent = SyncEvent.beginIfEnabled();
        final boolean alone = syncEventWaiters == 1
                && requestPosition > durablePosition
                && !writeInFlight
                && !markWriteInFlight
                && scanner.position() == writtenPosition
                && logBuffer.tailPosition() == writtenPosition;
        commitPolicy.onSyncSubmitted(requestCount);
        final boolean lone = syncEventWaiters <= 1;
        if (loneWriter != lone) {
            loneWriter = lone;
        }
        if (alone) {
            // One waiter and nothing else to write: this thread would only wait for the sync, so
            // the backend may run it here rather than hand it to a thread of its own and back. Not
            // for syncs nobody waits for (periodic, fences), which may cover much more data: writes
            // go on beside those.
            session.submitSyncOnCaller(activeHandle, KIND_SYNC << KIND_SHIFT);
        } else {
            session.submitSync(activeHandle, KIND_SYNC << KIND_SHIFT);
        }
        return 1;
    }

    /**
     * Writes a durability mark when the log has gone idle with records durable that no frame on disk
     * proves (the last group commit before a pause): the active segment's header is rewritten to
     * record the durable position. Without it, damage to those records after a crash could not be
     * told from a torn write, and a lost sector or page at the end of the data could take their proof
     * with it; the header lies elsewhere. It costs one 4 KiB write per pause; the next periodic sync
     * makes it durable (a process crash keeps it anyway: it is in the page cache). Data writes wait
     * for it, as for any write.
     */
    private int markDurable(final long nowNs) {
        if (durablePosition <= scanner.provenPosition()
                || durablePosition <= headerDurablePosition
                || nowNs - durableSinceNs < MARK_IDLE_NS
                || finalTailPosition >= 0
                || writeInFlight
                || markWriteInFlight
                || scanner.position() != submittedPosition
                || hasFrameToScan()) {
            return 0;
        }
        SegmentHeaders.write(headerBlock, (int) segmentCapacityBytes, activeBase, logId);
        SegmentHeaders.writeState(headerBlock, durablePosition, false);
        markPosition = durablePosition;
        markWriteInFlight = true;
        session.submitWrite(
                activeHandle, 0, headerBlock, 0, SegmentHeaderDescriptor.HEADER_LENGTH, KIND_MARK << KIND_SHIFT);
        return 1;
    }

    private void onMarkWritten(final long result) {
        markWriteInFlight = false;
        if (result != SegmentHeaderDescriptor.HEADER_LENGTH) {
            fail(new IOException("short write: the storage backend reported " + result + " bytes written"
                    + " without an error for the header of " + SegmentNames.segmentPath(directory, activeBase)
                    + "; a backend must finish a short write or fail it"));
            return;
        }
        headerDurablePosition = markPosition;
        markUnsynced = !writesDurable;
        stats.durabilityMarks = stats.durabilityMarks + 1;
    }

    /**
     * Background preparation of the next segment. Its zero-fill is a second write of every byte, so it
     * yields to the log's own writes: a step is submitted only when no frame waits to be written. When
     * the appenders come within an eighth of a segment of its end and the next one is still being
     * zero-filled, the preparer is hurried: the rest of the zero-fill is skipped (see {@link
     * SegmentPreparer}).
     */
    private int prepare() {
        if (activeBase + segmentCapacityBytes - scanner.position() <= hurryDistanceBytes && preparer.hurry()) {
            stats.segmentsHurried = stats.segmentsHurried + 1;
        }
        final boolean framesWaiting = writeInFlight || scanner.position() != submittedPosition || hasFrameToScan();
        if (framesWaiting && !preparer.isHurried()) {
            return 0;
        }
        return preparer.doWork();
    }

    private int maybeRoll() throws IOException {
        final long segmentEnd = activeBase + segmentCapacityBytes;
        // Not while a sync is in flight: one submitted after the fence (to make a durability mark
        // durable while the roll waited for its segment) targets the old segment's end, and its
        // completion after the roll would move the durable position back into the old segment.
        if (scanner.position() != segmentEnd || durablePosition != segmentEnd || markWriteInFlight || syncInFlight) {
            return 0;
        }
        if (!preparer.isReady(segmentEnd)) {
            if (rollWantedSinceNs < 0) {
                rollWantedSinceNs = System.nanoTime();
            }
            preparer.start(segmentEnd);
            return 0;
        }
        if (SegmentRollEvent.enabled()) {
            final SegmentRollEvent event = new SegmentRollEvent();
            event.directory = directory.toString();
            event.fromBasePosition = activeBase;
            event.toBasePosition = segmentEnd;
            event.waitedNs = rollWantedSinceNs < 0 ? 0 : System.nanoTime() - rollWantedSinceNs;
            event.commit();
        }
        rollWantedSinceNs = -1;
        session.closeFile(activeHandle);
        activeHandle = preparer.take();
        activeBase = segmentEnd;
        final long firstFramePosition = segmentEnd + SegmentHeaderDescriptor.HEADER_LENGTH;
        scanner.rollTo(firstFramePosition);
        submittedPosition = firstFramePosition;
        writtenPosition = firstFramePosition;
        durablePosition = firstFramePosition;
        headerDurablePosition = 0;
        markUnsynced = false;
        releasedPosition = firstFramePosition;
        logBuffer.release(releasedPosition);
        state.publishWritten(firstFramePosition);
        state.publishDurable(firstFramePosition);
        stats.segmentsRolled = stats.segmentsRolled + 1;
        preparer.start(activeBase + segmentCapacityBytes);
        return 1;
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
        final long kind = token >>> KIND_SHIFT;
        if (kind == KIND_WRITE) {
            onWriteComplete(token, result);
        } else if (kind == KIND_SYNC) {
            onSyncComplete();
        } else if (kind == KIND_PREPARE) {
            try {
                preparer.onCompletion(result);
            } catch (final IOException ex) {
                fail(ex);
            }
        } else if (kind == KIND_TRUNCATE) {
            truncation.onCompletion();
        } else if (kind == KIND_MARK) {
            onMarkWritten(result);
        } else {
            throw new AssertionError("unknown completion token " + Long.toHexString(token));
        }
    }

    private void onWriteComplete(final long token, final long result) {
        Invariants.check(writeInFlight && writePartsPending > 0, "unexpected write completion of %d bytes", result);
        if (result != ((token & WRITE_TAIL) != 0 ? writeTailBytes : writeFrameBytes)) {
            // The SPI makes a backend finish a short write or fail it; a short result taken for a
            // whole write would acknowledge records that never reached the file. Failing at once
            // also acknowledges nothing that completes after it.
            fail(new IOException("short write: the storage backend reported " + result + " bytes written"
                    + " without an error for a write of log positions [" + writeStartPosition + ", "
                    + writeEndPosition + ") at offset " + (writeStartPosition - activeBase) + " of "
                    + SegmentNames.segmentPath(directory, activeBase)
                    + "; a backend must finish a short write or fail it"));
            return;
        }
        writePartsPending--;
        stats.recordWrite(result);
        if (writePartsPending > 0) {
            return;
        }
        writeInFlight = false;
        writtenRecords = writeEndRecords;
        if (writeEndPosition != writtenPosition) {
            writtenPosition = writeEndPosition;
            releasedPosition = directIo ? writtenPosition & ~blockMask : writtenPosition;
            logBuffer.release(releasedPosition);
            // Written first, so that no observer ever sees durable ahead of written.
            state.publishWritten(writtenPosition);
            if (writesDurable) {
                final long newlyDurableBytes = writtenPosition - durablePosition;
                final long newlyDurableRecords = writtenRecords - durableRecords;
                durablePosition = writtenPosition;
                durableRecords = writtenRecords;
                durableSinceNs = System.nanoTime();
                // A durable write is this mode's sync: its duration tells SYNCED waiters whether to yield.
                final long latencyNs = durableSinceNs - writeSubmitNs;
                state.recordSyncDuration(latencyNs);
                stats.recordDurableWrite(latencyNs);
                commitSyncEvent("O_DSYNC write", newlyDurableBytes, newlyDurableRecords, 0);
                state.publishDurable(durablePosition);
            }
        }
    }

    private void onSyncComplete() {
        Invariants.check(
                syncTargetPosition >= durablePosition && syncTargetPosition >= activeBase,
                "sync to %d completed with the durable position at %d, active segment %d",
                syncTargetPosition,
                durablePosition,
                activeBase);
        syncInFlight = false;
        final long nowNs = System.nanoTime();
        stats.recordSync(syncTargetRecords - durableRecords, syncTargetPosition - durablePosition, nowNs - syncStartNs);
        commitSyncEvent(
                "fdatasync",
                syncTargetPosition - durablePosition,
                syncTargetRecords - durableRecords,
                syncEventWaiters);
        state.recordSyncDuration(nowNs - syncStartNs);
        commitPolicy.onSyncCompleted(nowNs, syncStartNs, state.syncRequestCount());
        if (syncTargetPosition != durablePosition) {
            durableSinceNs = nowNs;
        }
        durablePosition = syncTargetPosition;
        durableRecords = syncTargetRecords;
        if (syncCoversMark) {
            markUnsynced = false;
        }
        // Blocked waiters are woken after the next sync is submitted (end of doWork).
        state.publishDurableQuietly(durablePosition);
        durableWakePending = true;
    }

    private void commitSyncEvent(final String method, final long bytes, final long records, final long waiters) {
        final SyncEvent event = syncEvent;
        if (event == null) {
            return;
        }
        syncEvent = null;
        event.end();
        if (event.shouldCommit()) {
            event.directory = directory.toString();
            event.method = method;
            event.bytes = bytes;
            event.records = records;
            event.waiters = waiters;
            event.durablePosition = durablePosition;
            event.commit();
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
                && writtenPosition == end
                && (writesDurable || durablePosition == end)
                && !syncInFlight
                && !markWriteInFlight
                && !truncation.isActive()
                && !preparer.isOperationInFlight();
    }

    /** Lets go of the duty and parks, unless work is waiting; takes the duty back. Duty holder. */
    private void park(final long parkNs) {
        final long holdNs =
                cohortHolding ? Math.max(1, Math.min(parkNs, commitPolicy.holdUntilNs() - System.nanoTime())) : parkNs;
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
                    && (completionsRunIo || (!syncInFlight && !writeInFlight && !markWriteInFlight))
                    && !cohortHolding
                    && loneWriter
                    && state.waiterCount() == 0;
        }

        @Override
        public boolean expectsCompletion() {
            // With many blocked waiters the processors are better left to them: they must run to
            // append the next group. Waiters that yield are not counted: they let this thread run
            // themselves, and measured at 16 and 64 yielding writers this thread's yield does not hurt.
            // Completions that run the I/O themselves need nothing from this thread.
            return !completionsRunIo && (syncInFlight || writeInFlight) && state.waiterCount() <= YIELD_WAITERS_MAX;
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
        final boolean canSubmit = scanner.position() > submittedPosition && !writeInFlight;
        return closeRequested
                || truncation.hasPending()
                || asyncCompletions.hasInbox()
                || canSubmit
                || hasFrameToScan()
                || (!syncInFlight
                        && !cohortHolding
                        && state.syncRequestPosition() > durablePosition
                        && writtenPosition > durablePosition);
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
            event.writtenPosition = writtenPosition;
            event.durablePosition = durablePosition;
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
     * After a failure: waits until every producer that claimed space before the tail closed has
     * published its frame (they copy and publish without blocking), walking the claimed frames to the
     * final tail. A producer that does not publish within the wait (a descheduled or dying thread)
     * keeps the buffer from being freed.
     *
     * @return whether every claimed frame was published, so that no producer touches the buffer again.
     */
    private boolean awaitProducersAfterFailure() {
        final long deadlineNs = System.nanoTime() + CLOSE_PUBLISH_WAIT_NS;
        final long tailPosition = logBuffer.closeTail();
        long position = scanner.position();
        while (position < tailPosition) {
            if ((position & segmentMask) == 0) {
                position += SegmentHeaderDescriptor.HEADER_LENGTH;
                continue;
            }
            final int frameLength = logBuffer.frameLengthAcquire(position);
            if (frameLength == 0) {
                if (System.nanoTime() - deadlineNs > 0) {
                    return false;
                }
                Thread.onSpinWait();
                continue;
            }
            position += FrameDescriptor.alignedLength(frameLength);
        }
        return true;
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
        boolean producersDone = true;
        if (failed) {
            producersDone = awaitProducersAfterFailure();
        } else {
            markClosedCleanly();
            try {
                preparer.abandon(new BlockingIo(session));
            } catch (final IOException | RuntimeException ex) {
                LOGGER.log(
                        System.Logger.Level.WARNING,
                        "could not remove an unfinished segment preparation in " + directory
                                + "; the next open removes it",
                        ex);
            }
        }
        try {
            session.close();
        } catch (final RuntimeException ex) {
            LOGGER.log(System.Logger.Level.WARNING, "closing the storage session of " + directory + " failed", ex);
        }
        // Counted, not timed: memory an unfinished operation may still read is never freed; it is left
        // to the garbage collector, which frees it only once nothing refers to it.
        final int inFlight = session.inFlight();
        if (inFlight == 0) {
            preparer.close();
            headerMemory.close();
            if (scratchMemory != null) {
                scratchMemory.close();
            }
        } else {
            LOGGER.log(
                    System.Logger.Level.WARNING,
                    inFlight + " I/O operation(s) of the log in " + directory + " were still in flight when its"
                            + " storage session closed; their buffers are left to the garbage collector");
        }
        buffersFreeable = producersDone && inFlight == 0;
        asyncCompletions.stop(
                failed ? -1 : writtenPosition,
                failed ? -1 : durablePosition,
                failed
                        ? state.failure()
                        : new WalException(
                                WalException.ErrorCode.CLOSED, "the log closed before this position was reached"));
        if (!handOver) {
            state.markClosed();
        }
    }

    /**
     * Records the clean close in the active segment's header: every frame is durable now (the thread
     * stops only once the final position is), so the log ends exactly at the durable position. The
     * header is rewritten in place and synced. If that fails, nothing acknowledged is at risk: the
     * next open recovers the log as after a crash.
     */
    private void markClosedCleanly() {
        Invariants.check(
                writesDurable || durablePosition == writtenPosition,
                "closing with written %d durable %d",
                writtenPosition,
                durablePosition);
        try {
            SegmentHeaders.write(headerBlock, (int) segmentCapacityBytes, activeBase, logId);
            SegmentHeaders.writeState(headerBlock, durablePosition, true);
            final BlockingIo io = new BlockingIo(session);
            io.write(activeHandle, 0, headerBlock, SegmentHeaderDescriptor.HEADER_LENGTH);
            io.sync(activeHandle);
        } catch (final IOException | RuntimeException ex) {
            LOGGER.log(
                    System.Logger.Level.WARNING,
                    "could not record the clean close in " + SegmentNames.segmentPath(directory, activeBase)
                            + "; every record is durable, and the next open recovers the log as after a crash",
                    ex);
        }
    }

    private static final CompletionHandler DISCARD = (token, result, failure) -> {};
}
