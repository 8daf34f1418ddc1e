package io.walden.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One log's connection to its backend. Operations are submitted and complete later; each completion
 * is delivered exactly once through {@link #poll} with the token given at submission, even one that
 * completed before its submit call returned.
 *
 * <p>Ordering: a sync covers every write whose completion was delivered before the sync was
 * submitted; nothing else is promised. Writes that are in flight at the same time must not overlap.
 *
 * <p>Errors: a failed operation completes with a negative result and an {@link IOException} that
 * names the file and the cause. The core treats every failure as fatal for the log and never
 * retries a sync.
 *
 * <p><b>Threading:</b> all methods are called by one thread at a time, with a happens-before edge
 * between each and the next: the opening thread during recovery, then the log's I/O thread, and,
 * where the {@linkplain #capabilities() capabilities} allow it ({@link
 * StorageCapabilities#callerMayRunIo()}, {@link StorageCapabilities#completionThreadMayRunIo()}),
 * an appender or the thread that signals completions while it holds the log's I/O duty.
 */
public interface StorageSession extends AutoCloseable {
    /**
     * What this session can do and how the log must drive it. The log asks once, when the session
     * is opened: every call must return equal capabilities.
     *
     * @return the capabilities.
     */
    StorageCapabilities capabilities();

    /**
     * Opens a file for writing, synchronously. Cold path.
     *
     * @param path the file.
     * @param create true to create it, failing if it exists; false to open an existing file.
     * @return a handle, valid until {@link #closeFile}.
     * @throws IOException naming the file, if it cannot be opened.
     */
    int openFile(Path path, boolean create) throws IOException;

    /**
     * Closes a file handle, synchronously. Cold path. The handle must have no operation in flight.
     *
     * @param fileHandle the handle.
     * @throws IOException naming the file, if closing fails.
     */
    void closeFile(int fileHandle) throws IOException;

    /**
     * Submits a positional write. The bytes must stay unchanged until completion. The result must
     * equal the length: a backend completes a short write itself or reports it as a failure.
     *
     * @param fileHandle the file.
     * @param fileOffset byte offset in the file.
     * @param source a direct buffer holding the bytes; the backend may change its position and
     *     limit and must not keep it after the completion.
     * @param sourceOffset index of the first byte in {@code source}.
     * @param lengthBytes how many bytes.
     * @param token returned with the completion.
     */
    void submitWrite(int fileHandle, long fileOffset, ByteBuffer source, int sourceOffset, int lengthBytes, long token);

    /**
     * Submits the allocation of disk space for a byte range of a file (Linux {@code fallocate} mode
     * 0): the file grows to cover the range if needed, bytes never written read as zeros, and later
     * writes into the range cannot fail for lack of space. The result is {@code lengthBytes} when
     * the space was allocated, 0 when this backend or the file system cannot allocate ahead
     * (nothing allocated; the file may have been given the range's length as a hole, so that the
     * zero-fill does not extend it), and negative on a failure such as ENOSPC. The core writes zeros
     * over the range afterwards either way (docs/design/backends.md says why).
     *
     * @param fileHandle the file.
     * @param fileOffset first byte of the range.
     * @param lengthBytes length of the range.
     * @param token returned with the completion.
     */
    void submitAllocate(int fileHandle, long fileOffset, long lengthBytes, long token);

    /**
     * Submits fdatasync (or its equivalent) of a file.
     *
     * @param fileHandle the file.
     * @param token returned with the completion.
     */
    void submitSync(int fileHandle, long token);

    /**
     * Submits fdatasync (or its equivalent) of a file, which the backend may carry out on the calling
     * thread before returning (the completion still waits for {@link #poll}); asked for when the caller
     * would only wait for it, so a backend that hands syncs to a thread of its own saves two hand-offs.
     * The default is {@link #submitSync}.
     *
     * @param fileHandle the file.
     * @param token returned with the completion.
     */
    default void submitSyncOnCaller(final int fileHandle, final long token) {
        submitSync(fileHandle, token);
    }

    /**
     * Submits a positional write, as {@link #submitWrite}, which the backend may carry out on the
     * calling thread before returning (the completion still waits for {@link #poll}); asked for only
     * where writes are {@linkplain StorageCapabilities#writesDurable() durable by themselves}, by an
     * appender running its own record's I/O with no other write in flight. The default is {@link
     * #submitWrite}.
     *
     * @param fileHandle the file.
     * @param fileOffset byte offset in the file.
     * @param source a direct buffer holding the bytes, as for {@link #submitWrite}.
     * @param sourceOffset index of the first byte in {@code source}.
     * @param lengthBytes how many bytes.
     * @param token returned with the completion.
     */
    default void submitWriteOnCaller(
            final int fileHandle,
            final long fileOffset,
            final ByteBuffer source,
            final int sourceOffset,
            final int lengthBytes,
            final long token) {
        submitWrite(fileHandle, fileOffset, source, sourceOffset, lengthBytes, token);
    }

    /**
     * Submits an fsync of the log directory, making creates, renames and deletes durable.
     *
     * @param token returned with the completion.
     */
    void submitSyncDirectory(long token);

    /**
     * Submits an atomic rename within the log directory.
     *
     * @param source existing file.
     * @param target new name; must not exist.
     * @param token returned with the completion.
     */
    void submitRename(Path source, Path target, long token);

    /**
     * Submits the deletion of a file. Deleting a file that does not exist succeeds.
     *
     * @param path the file.
     * @param token returned with the completion.
     */
    void submitDelete(Path path, long token);

    /**
     * Delivers available completions.
     *
     * @param handler receives each completion.
     * @param limit most completions to deliver.
     * @return how many were delivered.
     */
    int poll(CompletionHandler handler, int limit);

    /** @return how many operations were submitted and not yet delivered by {@link #poll}. */
    int inFlight();

    /** Waits for operations in flight, frees all resources, stops the session's threads; idempotent. */
    @Override
    void close();
}
