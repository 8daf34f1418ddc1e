package io.walden;

import io.walden.internal.append.AppendPath;
import io.walden.internal.state.LogState;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The futures of {@link Wal#appendAsync} on one {@link AsyncAppender} shared under a lock, each
 * future's slot its record's tag. The ready signal polls on the log's thread if the lock is free, else
 * the lock's holder polls before it returns; at most {@link #CAPACITY} futures are pending.
 *
 * <p><b>Threading:</b> any thread; the appender and the slots are guarded by the lock.
 */
final class AsyncFutures implements AckHandler {
    /** Futures pending at most (16 B of ring and a reference each, allocated at the first call). */
    static final int CAPACITY = 16_384;

    /** How long a caller that found every slot taken waits before it polls again. */
    private static final long FULL_PARK_NS = TimeUnit.MICROSECONDS.toNanos(20);

    private final AppendPath appends;
    private final LogState state;
    // Package-private: a contract test holds it to make the ready signal leave its poll to a holder.
    final ReentrantLock lock = new ReentrantLock();

    // Guarded by lock; created at the first call.
    private AsyncAppender appender;
    private CompletableFuture<?>[] futures;
    private long sequence;

    // Set by the ready signal; taken by whoever gets the lock next (settleOwedPoll).
    private volatile boolean pollOwed;

    AsyncFutures(final AppendPath appends, final LogState state) {
        this.appends = appends;
        this.state = state;
    }

    /** Appends a record; the future completes once it reaches the level. Refusals throw. */
    CompletableFuture<Long> append(final byte[] payload, final Durability durability) {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        lock.lock();
        try {
            final AsyncAppender ring = ring();
            long lsn;
            while ((lsn = ring.appendWaitingForSpace(payload, durability, sequence)) == Wal.BACK_PRESSURED) {
                // Every slot is taken: the records' own levels free them.
                if (ring.poll(this) == 0) {
                    LockSupport.parkNanos(this, FULL_PARK_NS);
                }
            }
            futures[slot(sequence)] = future;
            sequence++;
            ring.poll(this);
        } finally {
            lock.unlock();
            // Also when the append threw (the log closed): a signal may have left its poll to this thread.
            settleOwedPoll();
        }
        return future;
    }

    private AsyncAppender ring() {
        if (appender == null) {
            appender = new AsyncAppender(appends, state, CAPACITY, this::readySignal);
            futures = new CompletableFuture<?>[appender.capacity()];
        }
        return appender;
    }

    private int slot(final long tag) {
        return (int) (tag & (futures.length - 1));
    }

    /** Whether a ready signal left its poll to the lock's holder (for the contract test). */
    boolean pollOwed() {
        return pollOwed;
    }

    /** The log's thread: something is due. Never blocks on the lock. */
    private void readySignal() {
        pollOwed = true;
        settleOwedPoll();
    }

    /**
     * Polls for a signal that found the lock taken. The signal sets the flag before it tries the lock,
     * and each holder looks at the flag after it lets the lock go, so one of them polls.
     */
    private void settleOwedPoll() {
        while (pollOwed && lock.tryLock()) {
            try {
                pollOwed = false;
                appender.poll(this);
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void acknowledged(final long lsn, final long tag) {
        final int slot = slot(tag);
        final CompletableFuture<Long> future = (CompletableFuture<Long>) futures[slot];
        futures[slot] = null;
        future.complete(lsn);
    }

    @Override
    public void failed(final long lsn, final long tag, final WalException failure) {
        final int slot = slot(tag);
        final CompletableFuture<?> future = futures[slot];
        futures[slot] = null;
        future.completeExceptionally(failure);
    }
}
