package io.walden.spi;

import java.io.IOException;

/**
 * Receives the completion of a storage operation.
 *
 * <p><b>Threading:</b> called by the thread that calls {@link StorageSession#poll}.
 */
@FunctionalInterface
public interface CompletionHandler {
    /**
     * An operation finished.
     *
     * @param token the token given at submission.
     * @param result bytes written for a write, zero for other operations; negative on failure.
     * @param failure null on success; otherwise the cause, naming the file.
     */
    void onCompletion(long token, long result, IOException failure);
}
