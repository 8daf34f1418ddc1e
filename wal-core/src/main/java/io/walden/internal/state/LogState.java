package io.walden.internal.state;

import io.walden.Durability;
import io.walden.WalException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The positions and state a log shares between its I/O thread and its users, and the waiting on them.
 * Waiting allocates nothing: a short spin (for a write), then a yield for up to the configured time,
 * then a park in a slot of a {@link WaiterRegistry} from which the I/O thread unparks exactly the
 * waiters it reached, each once (docs/design/how-it-works.md, "Waiting"). Back-pressure waits use a
 * monitor that the I/O thread notifies only when someone waits on it.
 *
 * <p>Positions: a frame at log position {@code lsn} is written once {@link #writtenPosition()} is
 * greater than {@code lsn}, and durable once {@link #durablePosition()} is. Both move only forward and
 * only to frame boundaries.
 *
 * <p><b>Threading:</b> positions are written only by the holder of the I/O duty, and by the opening
 * thread before the I/O thread starts; {@link #requestSync} and the waits are called by any thread.
 */
public final class LogState implements LogPositions {
    private static final VarHandle SYNC_REQUEST;
    private static final VarHandle SYNC_REQUEST_COUNT;
    private static final int WAITER_SLOTS = 1024;
    private static final long PARK_SLICE_NS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long OVERFLOW_PARK_NS = TimeUnit.MICROSECONDS.toNanos(100);
    private static final int SPIN_COUNT = 200;
    private static final int SYNC_DURATION_SMOOTHING = 8;
    private static final long WAIT_SLICE_MS = 10;

    static {
        try {
            SYNC_REQUEST = MethodHandles.lookup().findVarHandle(LogState.class, "syncRequestPosition", long.class);
            SYNC_REQUEST_COUNT = MethodHandles.lookup().findVarHandle(LogState.class, "syncRequestCount", long.class);
        } catch (final ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Object signal = new Object();

    // Written by the holder of the I/O duty; read by any thread.
    private volatile long writtenPosition;
    private volatile long durablePosition;
    private volatile long startPosition;
    private volatile Throwable failure;
    // Why the next segment cannot be prepared (a full file system), or null: appenders that time out
    // waiting at the end of the active segment report it. Written by the I/O thread.
    private volatile String spaceShortage;
    // Why a write to the active segment waits for space (it returned ENOSPC and is written again), or
    // null. Written by the holder of the I/O duty.
    private volatile String writeSpaceShortage;
    private volatile boolean closed;

    // Raised by any thread with compare-and-set; read by the holder of the I/O duty.
    @SuppressWarnings("unused")
    private volatile long syncRequestPosition;

    // Sync requests made so far (appends waiting for SYNCED, sync() calls); raised by any thread with
    // an atomic add, read by the duty holder to see how many waiters came back since its last sync.
    @SuppressWarnings("unused")
    private volatile long syncRequestCount;

    // Written by the duty holder while it holds a sync for a group of waiters to come back: the request
    // count at which an appender must wake it (0: always).
    private volatile long cohortWakeCount;

    // How long a waiter yields before it parks, and the longest single park of a registered waiter
    // (a backstop: the I/O thread unparks it when its position is reached); final.
    private final long waitYieldNs;
    private final long parkSliceNs;

    // Smoothed duration of recent syncs (an exponential average over about eight); written by the I/O
    // thread after each sync, read by waiters to skip a yield that could not outlast the sync.
    private volatile long syncDurationNs;

    // Smoothed wait of the I/O thread for a processor ({@link ProcessorScarcity}); written by the I/O
    // thread after each park that a wake ended and each yield, read by waiters before they yield and
    // by the duty holder.
    private volatile long wakeLatencyNs;

    // Durability waiters, woken one by one when their position is reached (no thundering herd), with
    // no lock between the publishing thread and the appenders that register.
    private final WaiterRegistry registry = new WaiterRegistry(WAITER_SLOTS);

    // The ready signals of asynchronous appenders, run by the duty holder as their acknowledgements fall due.
    private final AckWatches ackWatches = new AckWatches();

    // Guarded by signal; volatile so that the I/O thread can skip the monitor when nobody waits.
    private volatile int waiterCount;

    // Pairs [cut, continue) of positions that truncateAfter discarded while the log was open, in the
    // order of the truncations. Replaced whole (copy on write) by the truncating thread, which holds
    // the log's close lock; read by readers.
    private volatile long[] discardedRanges = NO_RANGES;

    public LogState(final long startPosition, final long endPosition, final long waitYieldNs) {
        this(startPosition, endPosition, waitYieldNs, PARK_SLICE_NS);
    }

    /** Tests choose a long park slice, so that only an unpark ends a registered waiter's wait. */
    LogState(final long startPosition, final long endPosition, final long waitYieldNs, final long parkSliceNs) {
        Invariants.check(waitYieldNs >= 0, "negative wait yield time %d", waitYieldNs);
        Invariants.check(parkSliceNs > 0, "park slice %d not positive", parkSliceNs);
        this.waitYieldNs = waitYieldNs;
        this.parkSliceNs = parkSliceNs;
        this.startPosition = startPosition;
        this.writtenPosition = endPosition;
        this.durablePosition = endPosition;
        this.syncRequestPosition = endPosition;
    }

    public long writtenPosition() {
        return writtenPosition;
    }

    public long durablePosition() {
        return durablePosition;
    }

    @Override
    public long startPosition() {
        return startPosition;
    }

    @Override
    public long visiblePosition(final Durability visibility) {
        return visibility == Durability.SYNCED ? durablePosition : writtenPosition;
    }

    @Override
    public boolean awaitVisible(final long position, final Durability visibility, final long timeoutNs) {
        return reached(visibility) > position || await(position + 1, visibility, timeoutNs, Long.MAX_VALUE);
    }

    public long syncRequestPosition() {
        return (long) SYNC_REQUEST.getVolatile(this);
    }

    public long syncRequestCount() {
        return (long) SYNC_REQUEST_COUNT.getVolatile(this);
    }

    /** Threads blocked waiting on this log right now (racy). */
    public int waiterCount() {
        return registry.registeredCount() + waiterCount;
    }

    public Throwable failure() {
        return failure;
    }

    public AckWatches ackWatches() {
        return ackWatches;
    }

    public boolean isClosed() {
        return closed;
    }

    /** I/O thread: publishes the written position and wakes waiters. */
    public void publishWritten(final long position) {
        writtenPosition = position;
        wakeRegistered(false);
        signalWaiters();
    }

    /** I/O thread: publishes the durable position and wakes waiters. */
    public void publishDurable(final long position) {
        durablePosition = position;
        wakeRegistered(false);
    }

    /**
     * I/O thread: publishes the durable position without waking blocked waiters yet (spinning and
     * yielding ones see it); {@link #wakeDurable()} follows the next sync's submission, so wake-ups do
     * not delay it.
     */
    public void publishDurableQuietly(final long position) {
        durablePosition = position;
    }

    /** I/O thread: records how long a sync took, from submission to completion. */
    public void recordSyncDuration(final long durationNs) {
        final long average = syncDurationNs;
        syncDurationNs = average + (durationNs - average) / SYNC_DURATION_SMOOTHING;
    }

    /** I/O thread: records how long it waited for a processor (after a wake request, or in a yield). */
    public void recordWakeLatency(final long latencyNs) {
        wakeLatencyNs = ProcessorScarcity.smoothed(wakeLatencyNs, latencyNs);
    }

    /** The smoothed wake-up latency of the I/O thread; zero before the first. */
    public long wakeLatencyNs() {
        return wakeLatencyNs;
    }

    /** Whether the log's threads wait for processors ({@link ProcessorScarcity}). Any thread. */
    public boolean processorsScarce() {
        return ProcessorScarcity.scarce(wakeLatencyNs);
    }

    /** The smoothed duration of recent syncs; zero before the first. */
    public long syncDurationNs() {
        return syncDurationNs;
    }

    /** I/O thread: wakes the blocked waiters whose position is now reached. */
    public void wakeDurable() {
        wakeRegistered(false);
    }

    public void publishStart(final long position) {
        startPosition = position;
    }

    /** Marks the log failed and wakes every waiter. The first failure wins. */
    public void fail(final Throwable cause) {
        if (failure == null) {
            failure = cause;
        }
        wakeRegistered(true);
        signalWaiters();
    }

    @Override
    public long[] discardedRanges() {
        return discardedRanges;
    }

    /**
     * Records positions that {@code truncateAfter} discarded from the open log, before any file
     * changes: readers stop at the cut from now on. Called by the truncating thread, one at a time.
     */
    public void addDiscardedRange(final long cutPosition, final long continuePosition) {
        Invariants.check(
                cutPosition < continuePosition, "discarded range [%d, %d) is empty", cutPosition, continuePosition);
        final long[] current = discardedRanges;
        final long[] next = Arrays.copyOf(current, current.length + 2);
        next[current.length] = cutPosition;
        next[current.length + 1] = continuePosition;
        discardedRanges = next;
    }

    /**
     * Moves the written, durable and requested positions up to where a log continues after {@code
     * truncateAfter} reopened its files, and wakes every waiter and reader. Called between two I/O
     * agents.
     */
    public void continueAt(final long position) {
        Invariants.check(
                position >= writtenPosition && position >= durablePosition,
                "continue at %d below written %d durable %d",
                position,
                writtenPosition,
                durablePosition);
        requestSync(position);
        writtenPosition = position;
        durablePosition = position;
        cohortWakeCount = 0;
        wakeRegistered(true);
        signalWaiters();
    }

    public void markClosed() {
        closed = true;
        wakeRegistered(true);
        signalWaiters();
    }

    /** Asks the I/O thread to make everything before a position durable. */
    public void requestSync(final long position) {
        long current;
        do {
            current = (long) SYNC_REQUEST.getVolatile(this);
            if (current >= position) {
                return;
            }
        } while (!SYNC_REQUEST.compareAndSet(this, current, position));
    }

    /**
     * Counts a thread that is about to wait for a sync. An append counts itself before it publishes
     * its frame, so that a sync submitted after the frame was seen also sees the count.
     */
    public long countSyncRequest() {
        return (long) SYNC_REQUEST_COUNT.getAndAdd(this, 1L) + 1;
    }

    /**
     * Whether the request with this count must wake the I/O thread: while it holds a sync for a group,
     * only the request that completes the group does (the hold ends by itself anyway).
     */
    public boolean wakeNeeded(final long requestCount) {
        return requestCount >= cohortWakeCount;
    }

    /** I/O thread: sets the request count that completes the group it waits for (0: none). */
    public void cohortWakeCount(final long count) {
        if (cohortWakeCount != count) {
            cohortWakeCount = count;
        }
    }

    /** Wakes the back-pressure waiters, if any. */
    public void signalWaiters() {
        if (waiterCount > 0) {
            synchronized (signal) {
                signal.notifyAll();
            }
        }
    }

    public long reached(final Durability durability) {
        return durability == Durability.SYNCED ? durablePosition : writtenPosition;
    }

    /** False if the time runs out; throws once the log failed, or closed ending before the position. */
    public boolean await(
            final long position, final Durability durability, final long timeoutNs, final long finalPosition) {
        // A write completes within microseconds, worth a spin; a sync takes a device flush (a hundred
        // microseconds or more), and with many waiters their spinning would take the processors the
        // I/O thread and the next appenders need.
        final int spinCount = durability == Durability.SYNCED ? 0 : SPIN_COUNT;
        for (int i = 0; i < spinCount; i++) {
            if (reached(durability) >= position) {
                return true;
            }
            Thread.onSpinWait();
        }
        // One deadline for the yield and the park together, so that the wait never exceeds its timeout.
        final long deadlineNs = timeoutNs == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + timeoutNs;
        if (yieldUntilReached(position, durability, timeoutNs)) {
            return true;
        }
        // NO_SLOT when every slot is taken: the waiter then polls.
        final int slot = registry.register(position, durability == Durability.SYNCED);
        try {
            while (reached(durability) < position) {
                checkUsable(position, finalPosition);
                final long remainingNs = deadlineNs == Long.MAX_VALUE ? Long.MAX_VALUE : deadlineNs - System.nanoTime();
                if (remainingNs <= 0) {
                    return false;
                }
                LockSupport.parkNanos(
                        this, Math.min(remainingNs, slot != WaiterRegistry.NO_SLOT ? parkSliceNs : OVERFLOW_PARK_NS));
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new WalException(
                            WalException.ErrorCode.INTERRUPTED, "interrupted while waiting for position " + position);
                }
            }
            if (slot != WaiterRegistry.NO_SLOT) {
                // Woken: the publish that reached this waiter likely reached others, whom the
                // publisher is still unparking one system call at a time (and is preempted by each
                // waiter it wakes). Helping spreads the wakes over the processors; a slot is unparked
                // once whoever gets to it first.
                registry.wakeReached(writtenPosition, durablePosition);
            }
            return true;
        } finally {
            if (slot != WaiterRegistry.NO_SLOT) {
                registry.deregister(slot);
            }
        }
    }

    private void wakeRegistered(final boolean all) {
        if (all) {
            registry.wakeAll();
        } else {
            registry.wakeReached(writtenPosition, durablePosition);
        }
    }

    /**
     * Yields until the position is reached or the wait-yield time passes (not for a sync while recent
     * syncs outlast it); ends early at the timeout, on an interrupt, and when the log fails or closes.
     */
    private boolean yieldUntilReached(final long position, final Durability durability, final long timeoutNs) {
        final long yieldNs = Math.min(waitYieldNs, timeoutNs);
        // Yielding to threads that hold every processor only delays the log's own threads, once others
        // wait too; a lone waiter still yields, so that the I/O thread may rest and a lone writer's
        // next append runs its own I/O (no waiter may be blocked for that).
        if (yieldNs <= 0
                || (durability == Durability.SYNCED && syncDurationNs > yieldNs)
                || (processorsScarce() && registry.registeredCount() > 0)) {
            return false;
        }
        final long deadlineNs = System.nanoTime() + yieldNs;
        do {
            if (reached(durability) >= position) {
                return true;
            }
            Thread.yield();
        } while (System.nanoTime() - deadlineNs < 0
                && failure == null
                && !closed
                && !Thread.currentThread().isInterrupted());
        return reached(durability) >= position;
    }

    /** Claims buffer space, waiting while the buffer is full until the deadline. */
    public long awaitClaim(
            final LogBuffer logBuffer, final int alignedLength, final long deadlineNs, final Runnable ioWake) {
        for (int i = 0; i < SPIN_COUNT; i++) {
            ioWake.run();
            final long result = logBuffer.claim(alignedLength);
            if (result != LogBuffer.BACK_PRESSURED) {
                return result;
            }
            Thread.yield();
        }
        synchronized (signal) {
            waiterCount++;
            try {
                while (true) {
                    final long result = logBuffer.claim(alignedLength);
                    if (result != LogBuffer.BACK_PRESSURED) {
                        return result;
                    }
                    final long remainingNs = deadlineNs - System.nanoTime();
                    if (remainingNs <= 0) {
                        return LogBuffer.BACK_PRESSURED;
                    }
                    ioWake.run();
                    signal.wait(Math.max(1, Math.min(WAIT_SLICE_MS, TimeUnit.NANOSECONDS.toMillis(remainingNs))));
                }
            } catch (final InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new WalException(
                        WalException.ErrorCode.INTERRUPTED,
                        "interrupted while waiting for log buffer space; nothing was appended");
            } finally {
                waiterCount--;
            }
        }
    }

    /** The exception for a wait for a position that the log's failure left unacknowledged. */
    public static WalException failureException(final Throwable cause, final long position) {
        final boolean noSpace = NoSpace.isNoSpace(cause);
        return new WalException(
                noSpace ? WalException.ErrorCode.STORAGE_SPACE : WalException.ErrorCode.IO,
                "the log failed before position " + position + " was acknowledged: " + cause.getMessage()
                        + ". Nothing after the failure is acknowledged; "
                        + (noSpace ? NoSpace.ADVICE : "close the log and reopen it to recover") + ".",
                cause);
    }

    private void checkUsable(final long position, final long finalPosition) {
        final Throwable cause = failure;
        if (cause != null) {
            throw failureException(cause, position);
        }
        if (closed && position > finalPosition) {
            throw new WalException(
                    WalException.ErrorCode.CLOSED,
                    "the log is closed and ends at position " + finalPosition + " before position " + position);
        }
    }

    public void spaceShortage(final String shortage) {
        this.spaceShortage = shortage;
    }

    /** Why the log waits for space: a write that found none first, else the next segment's preparation. */
    public String spaceShortage() {
        final String writeShortage = writeSpaceShortage;
        return writeShortage != null ? writeShortage : spaceShortage;
    }

    public void writeSpaceShortage(final String shortage) {
        this.writeSpaceShortage = shortage;
    }

    /** Clears the write shortage if it is still the one given (another stage may have set its own since). */
    public void clearWriteSpaceShortage(final String shortage) {
        if (writeSpaceShortage == shortage) {
            writeSpaceShortage = null;
        }
    }
}
