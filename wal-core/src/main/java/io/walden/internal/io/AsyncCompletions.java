package io.walden.internal.io;

import io.walden.Durability;
import io.walden.WalException;
import io.walden.internal.state.WaitFailure;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Completes the futures of the asynchronous API when their position is written or durable; allocates (a
 * future and a queue node per append), and the blocking waits do not use it.
 *
 * <p><b>Threading:</b> {@link #add} from any thread; everything else from the holder of the I/O duty,
 * never in a completion round: a callback attached with a non-async method runs there and must not block.
 */
final class AsyncCompletions {
    record Pending(long lsn, Durability durability, CompletableFuture<Long> future) {}

    private final ConcurrentLinkedQueue<Pending> inbox = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Pending> written = new PriorityQueue<>((a, b) -> Long.compare(a.lsn(), b.lsn()));
    private final PriorityQueue<Pending> synced = new PriorityQueue<>((a, b) -> Long.compare(a.lsn(), b.lsn()));

    // Set once by the I/O thread as it stops serving futures; read by adding threads.
    private volatile Throwable stopCause;
    private volatile long finalWrittenPosition = -1;
    private volatile long finalDurablePosition = -1;

    /** Adds a future; once the I/O thread has stopped, settles the inbox itself (each future taken once). */
    void add(final Pending pending) {
        inbox.add(pending);
        if (stopCause != null) {
            settleInbox();
        }
    }

    /** I/O thread, once, at the end: no more futures are served; settles everything. */
    void stop(final long writtenPosition, final long durablePosition, final Throwable cause) {
        finalWrittenPosition = writtenPosition;
        finalDurablePosition = durablePosition;
        stopCause = cause;
        complete(writtenPosition, durablePosition);
        failAll(cause);
    }

    private void settleInbox() {
        Pending pending;
        while ((pending = inbox.poll()) != null) {
            final long reached =
                    pending.durability() == Durability.SYNCED ? finalDurablePosition : finalWrittenPosition;
            if (pending.lsn() < reached) {
                pending.future().complete(pending.lsn());
            } else {
                pending.future().completeExceptionally(failure(stopCause, pending));
            }
        }
    }

    boolean hasInbox() {
        return !inbox.isEmpty();
    }

    /** Whether any future waits, added or queued; the I/O thread (or the duty holder) only. */
    boolean hasWaiting() {
        return !inbox.isEmpty() || !written.isEmpty() || !synced.isEmpty();
    }

    int complete(final long writtenPosition, final long durablePosition) {
        Pending pending;
        while ((pending = inbox.poll()) != null) {
            (pending.durability() == Durability.SYNCED ? synced : written).add(pending);
        }
        return drain(written, writtenPosition) + drain(synced, durablePosition);
    }

    private static int drain(final PriorityQueue<Pending> queue, final long position) {
        int count = 0;
        Pending head;
        while ((head = queue.peek()) != null && head.lsn() < position) {
            queue.poll();
            head.future().complete(head.lsn());
            count++;
        }
        return count;
    }

    void failAll(final Throwable cause) {
        Pending pending;
        while ((pending = inbox.poll()) != null) {
            pending.future().completeExceptionally(failure(cause, pending));
        }
        for (final PriorityQueue<Pending> queue : java.util.List.of(written, synced)) {
            while ((pending = queue.poll()) != null) {
                pending.future().completeExceptionally(failure(cause, pending));
            }
        }
    }

    /**
     * What a future learns when the log fails or closes before its record reached its level: as a
     * blocking append, that the record is in the log and whether it reached the disk is unknown.
     */
    private static WalException failure(final Throwable cause, final Pending pending) {
        return WaitFailure.forStoppedLog(cause, pending.lsn(), pending.durability());
    }
}
