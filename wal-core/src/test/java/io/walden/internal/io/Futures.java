package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
}
