package io.walden.internal;

import io.walden.Durability;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Completes the futures of the asynchronous API when their position is written or durable. This
 * path allocates (a future and a queue node per append) and is documented as such; the blocking
 * waits do not use it.
 *
 * <p>Futures are completed on the I/O thread: a callback attached with a non-async method runs
 * there and must not block.
 *
 * <p><b>Threading:</b> {@link #add} from any thread; everything else from the I/O thread.
 */
final class AsyncCompletions {
    /** A future waiting for a position. */
    record Pending(long lsn, Durability durability, CompletableFuture<Long> future) {}

    private final ConcurrentLinkedQueue<Pending> inbox = new ConcurrentLinkedQueue<>();
    private final PriorityQueue<Pending> written = new PriorityQueue<>((a, b) -> Long.compare(a.lsn(), b.lsn()));
    private final PriorityQueue<Pending> synced = new PriorityQueue<>((a, b) -> Long.compare(a.lsn(), b.lsn()));

    void add(final Pending pending) {
        inbox.add(pending);
    }

    boolean hasInbox() {
        return !inbox.isEmpty();
    }

    /**
     * Completes every future whose position was reached.
     *
     * @param writtenPosition the written position.
     * @param durablePosition the durable position.
     * @return how many were completed.
     */
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

    /**
     * Fails every waiting future.
     *
     * @param cause the failure.
     */
    void failAll(final Throwable cause) {
        Pending pending;
        while ((pending = inbox.poll()) != null) {
            pending.future().completeExceptionally(cause);
        }
        for (final PriorityQueue<Pending> queue : java.util.List.of(written, synced)) {
            while ((pending = queue.poll()) != null) {
                pending.future().completeExceptionally(cause);
            }
        }
    }
}
