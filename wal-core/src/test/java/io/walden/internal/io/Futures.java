package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** What the write path's tests ask of an appender's future. */
final class Futures {
    private Futures() {}

    /**
     * The failure a future completed with.
     *
     * @param future a future that completed exceptionally.
     * @return its cause.
     */
    static Throwable causeOf(final CompletableFuture<Long> future) {
        assertTrue(future.isCompletedExceptionally(), "the future did not fail");
        try {
            future.get();
            throw new AssertionError("completed normally");
        } catch (final ExecutionException ex) {
            return ex.getCause();
        } catch (final InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    /**
     * Checks that a future failed as an appender's future must when the log fails or closes before
     * its record reached its level: a {@link WalException} naming the record's LSN, saying that its
     * outcome is unknown, with the log's failure in its cause chain.
     *
     * @param cause the log's failure.
     * @param future the future.
     * @param lsn its record's LSN.
     * @return the exception.
     */
    static WalException assertFailedWith(final Throwable cause, final CompletableFuture<Long> future, final long lsn) {
        final WalException failure = assertInstanceOf(WalException.class, causeOf(future));
        assertEquals(lsn, failure.lsn(), failure.getMessage());
        assertTrue(failure.getMessage().contains("LSN " + lsn), failure.getMessage());
        Throwable inChain = failure;
        while (inChain != null && inChain != cause) {
            inChain = inChain.getCause();
        }
        assertSame(cause, inChain, "the log's failure is not in the cause chain of " + failure);
        return failure;
    }
}
