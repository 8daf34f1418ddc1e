package io.walden.internal.io;

import static io.walden.internal.io.Futures.assertFailedWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.Durability;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The futures of the asynchronous API: each completed with its position once the written or durable
 * position passes it, in position order; failed with the cause; settled at once when added after the
 * I/O thread stopped.
 */
class AsyncCompletionsTest {
    private final AsyncCompletions completions = new AsyncCompletions();

    @Test
    void shouldCompleteEachFutureOnceItsPositionIsPassedAtItsDurability() {
        final CompletableFuture<Long> written = add(100, Durability.WRITTEN);
        final CompletableFuture<Long> synced = add(100, Durability.SYNCED);
        assertTrue(completions.hasInbox());
        assertEquals(0, completions.complete(100, 100), "a position is reached once it is passed");
        assertFalse(completions.hasInbox());
        assertTrue(completions.hasWaiting());
        assertEquals(1, completions.complete(101, 100));
        assertEquals(100L, written.getNow(-1L));
        assertFalse(synced.isDone());
        assertEquals(1, completions.complete(101, 101));
        assertEquals(100L, synced.getNow(-1L));
        assertFalse(completions.hasWaiting());
    }

    @Test
    void shouldCompleteInPositionOrderWhateverTheOrderAdded() {
        final List<Long> order = new ArrayList<>();
        for (final long lsn : new long[] {300, 100, 200, 400}) {
            add(lsn, Durability.SYNCED).thenAccept(order::add);
        }
        assertEquals(3, completions.complete(1000, 301));
        assertEquals(List.of(100L, 200L, 300L), order);
        assertTrue(completions.hasWaiting());
    }

    @Test
    void shouldFailEveryWaitingFutureWithTheCause() {
        final CompletableFuture<Long> queued = add(100, Durability.WRITTEN);
        completions.complete(0, 0);
        final CompletableFuture<Long> inbox = add(200, Durability.SYNCED);
        final IllegalStateException cause = new IllegalStateException("failed");
        completions.failAll(cause);
        assertFailedWith(cause, queued, 100);
        assertFailedWith(cause, inbox, 200);
        assertFalse(completions.hasWaiting());
    }

    @Test
    void shouldSettleEverythingAtTheStopAndWhatIsAddedAfterItAtOnce() {
        final CompletableFuture<Long> reached = add(100, Durability.SYNCED);
        final CompletableFuture<Long> notReached = add(300, Durability.WRITTEN);
        final IllegalStateException cause = new IllegalStateException("closed");
        completions.stop(300, 200, cause);
        assertEquals(100L, reached.getNow(-1L));
        assertFailedWith(cause, notReached, 300);

        assertEquals(250L, add(250, Durability.WRITTEN).getNow(-1L));
        assertFailedWith(cause, add(250, Durability.SYNCED), 250);
        assertFalse(completions.hasWaiting());
    }

    private CompletableFuture<Long> add(final long lsn, final Durability durability) {
        final CompletableFuture<Long> future = new CompletableFuture<>();
        completions.add(new AsyncCompletions.Pending(lsn, durability, future));
        return future;
    }
}
