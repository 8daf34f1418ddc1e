package io.walden.spi;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * One log's connection to its backend. Operations are submitted and complete later; each
 * completion is delivered exactly once through {@link #poll} with the token given at submission.
 * A backend may complete an operation before the submit call returns, but the completion is still
 * delivered by {@code poll}.
 *
 * <p>Ordering: a sync covers every write whose completion was delivered before the sync was
 * submitted; nothing else is promised. Writes that are in flight at the same time must not overlap.
 *
 * <p>Errors: a failed operation completes with a negative result and an {@link IOException} that
 * names the file and the cause. The core treats every failure as fatal for the log and never
 * retries a sync.
 *
 * <p><b>Threading:</b> all methods are called by one thread at a time: the opening thread during
 * recovery, then the log's I/O thread, with a happens-before edge between each and the next. A
 * session that says {@link #callerMayRunIo()} is also used, one at a time, by appenders that run
 * the log's I/O on their own thread while its I/O thread rests; one that says {@link
 * #completionThreadMayRunIo()}, by the thread that signals completions, in the same way.
 */
public interface StorageSession extends AutoCloseable {
    /**
     * Whether writes go around the page cache (O_DIRECT). Then every write's file offset, length
     * and memory address are multiples of {@link #blockSizeBytes()}.
     *
     * @return true for direct I/O.
     */
    boolean directIo();

    /**
     * Whether a completed write is already durable (O_DSYNC or equivalent), so that no sync is
     * needed to make written data survive power loss.
     *
     * @return true if writes are durable on completion.
     */
    boolean writesDurable();

    /**
     * What this session does differently from the options it was created with, so as to keep the
     * durability they promise on this file system; for example, syncing with fdatasync where O_DSYNC
     * writes are known not to be durable. The core reports it in its statistics and logs.
     *
     * @return the note, naming the file system, the mode and what is done instead; null if nothing.
     */
    default String durabilityNote() {
        return null;
    }

    /**
     * Alignment required for direct I/O, a power of two; 1 when {@link #directIo()} is false.
     *
     * @return the block size.
     */
    int blockSizeBytes();

    /**
     * Most operations this session accepts in flight at once; more are refused.
     *
     * @return the bound, at least 1.
     */
    int maxInFlight();

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
     * Submits a positional write. The bytes must stay unchanged until completion. The result is the
     * number of bytes written, which must equal the length: a backend completes a short write itself
     * or reports it as a failure.
     *
     * @param fileHandle the file.
     * @param fileOffset byte offset in the file.
     * @param source a direct buffer holding the bytes; the backend may change its position and limit
     *     and must not keep it after the completion.
     * @param sourceOffset index of the first byte in {@code source}.
     * @param lengthBytes how many bytes.
     * @param token returned with the completion.
     */
    void submitWrite(int fileHandle, long fileOffset, ByteBuffer source, int sourceOffset, int lengthBytes, long token);

    /**
     * Submits the allocation of disk space for a byte range of a file (Linux {@code fallocate}
     * mode 0): the file grows to cover the range if needed, bytes never written read as zeros, and
     * later writes into the range cannot fail for lack of space. Allocated but unwritten space is
     * still metadata to the file system, so the core writes zeros over the range afterwards anyway;
     * allocating first finds a full disk early and gives the segment contiguous extents.
     *
     * <p>The result is {@code lengthBytes} when the space was allocated, and 0 when this backend or
     * the file system cannot allocate ahead (nothing changed; the caller goes on without). A failure,
     * for example ENOSPC, completes with a negative result.
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
     * Submits fdatasync (or its equivalent) of a file that the backend may carry out on the calling
     * thread before returning, its completion then waiting for the next {@link #poll} like any other.
     * The owning thread asks for it when it has nothing else to do until the sync completes (a lone
     * writer waits for it): a backend that otherwise hands syncs to a thread of its own saves the two
     * thread hand-offs. The default submits as {@link #submitSync} does.
     *
     * @param fileHandle the file.
     * @param token returned with the completion.
     */
    default void submitSyncOnCaller(final int fileHandle, final long token) {
        submitSync(fileHandle, token);
    }

    /**
     * Submits a positional write, as {@link #submitWrite} does, that the backend may carry out on the
     * calling thread before returning, its completion then waiting for the next {@link #poll} like any
     * other. The owning thread asks for it only where writes are {@linkplain #writesDurable() durable by
     * themselves}, the caller is an appender running its own record's I/O ({@link #callerMayRunIo()}),
     * and no other write is in flight: the appender would only wait for this write. A backend that
     * otherwise learns of completions on a thread of its own saves the hand-off back (as {@link
     * #submitSyncOnCaller} does for syncs). The default submits as {@link #submitWrite} does.
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
     * Whether an appender may run this session's writes and {@link #submitSyncOnCaller} syncs on its
     * own thread when the log's I/O path is idle, instead of handing them to the I/O thread (RocksDB's
     * write leader, for a group of one). Worth it when those operations complete before the submit
     * call returns: the appender then reaches its durability level without waking any other thread;
     * or when the session {@linkplain #completionThreadMayRunIo() runs the log's I/O on its completion
     * thread}: the appender then hands its write straight to the backend, not to the I/O thread. An
     * appender that finds the active segment full also rolls it, and so may close a file.
     *
     * <p>A session that says yes must survive an interrupt of the calling thread during any
     * operation: the interrupt is the appender's, not the log's, so it must neither fail the
     * operation nor leave the session unusable (a {@code FileChannel} that an interrupt closed must
     * be replaced, and a sync whose outcome the interrupt hid must be made again on a file descriptor
     * that has seen every write-back error since the last sync). The calling thread's interrupt
     * status is kept. The default is false: only the I/O thread runs operations.
     *
     * @return true if appenders may run writes and on-caller syncs.
     */
    default boolean callerMayRunIo() {
        return false;
    }

    /**
     * Whether the completion signal ({@code StorageBackend#open}) may run the log's I/O on the thread
     * that signals: deliver completions with {@link #poll} and submit the writes and syncs that follow
     * them, there and then, instead of waking the log's I/O thread to do it. Worth it for a backend
     * that completes operations on a thread of its own (an event loop) from which submitting is cheaper
     * than from any other thread: a write, its sync and the acknowledgement then follow each other on
     * that thread with no thread woken between them.
     *
     * <p>A session that says yes promises that, on the thread that signals, {@link #submitWrite},
     * {@link #submitSync} and {@link #poll} neither block nor wait for a completion. The core then
     * never calls the other methods there (file opens and closes, directory operations, allocation),
     * never runs user code there, and runs these three only while it holds the log's I/O duty, so the
     * one-thread-at-a-time rule above still holds. The signal may also run on a thread that is
     * submitting (an operation that completed before its submit call returned); the core copes with
     * that. The default is false: the signal only wakes the I/O thread.
     *
     * @return true if the signalling thread may run writes, syncs and polls.
     */
    default boolean completionThreadMayRunIo() {
        return false;
    }

    /**
     * How many writes this session carries out at once, each overlapping the others, where its writes
     * are {@linkplain #writesDurable() durable by themselves}: the log then keeps up to that many (and
     * at most {@code WalConfig.durableWritesInFlightMax}) group writes in flight, each its own group
     * commit. A session whose writes complete in any order says how many it overlaps (an io_uring
     * ring: many); one that carries out each write on the submitting thread before the call returns
     * gains nothing from more, and says 1. The core never submits more writes at once than this says,
     * and never two that touch the same block with direct I/O.
     *
     * @return at least 1. The default is 1: one write in flight.
     */
    default int overlappingWritesMax() {
        return 1;
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

    /**
     * Operations submitted and not yet delivered by {@link #poll}.
     *
     * @return the count.
     */
    int inFlight();

    /**
     * Waits for in-flight operations to finish, releases every resource and stops the session's
     * threads. Idempotent.
     */
    @Override
    void close();
}
