package io.walden.spi;

/**
 * What a {@link StorageSession} can do and how the log must drive it: its I/O mode, its limits and
 * which threads may run its operations. The session returns it from {@link
 * StorageSession#capabilities()}; the log reads it once, when the session is opened, and never again,
 * so it must not change while the session is open.
 *
 * <p>Build one with {@link #of(StorageOptions, int)} (or {@link #of(boolean, boolean, int, int)}),
 * which gives the optional components their defaults, and change those that differ with the {@code
 * with...} methods; each returns a new record.
 *
 * <p><b>Threading:</b> immutable.
 *
 * @param directIo whether writes go around the page cache (O_DIRECT). Then every write's file
 *     offset, length and memory address are multiples of {@code blockSizeBytes}.
 * @param writesDurable whether a completed write is already durable (O_DSYNC or equivalent), so
 *     that no sync is needed to make written data survive power loss.
 * @param blockSizeBytes the alignment required for direct I/O, a power of two; 1 when {@code
 *     directIo} is false ({@link StorageOptions#blockSizeBytes()}).
 * @param maxInFlight the most operations the session accepts in flight at once, at least 1; more
 *     are refused.
 * @param callerMayRunIo whether an appender may run the session's writes and {@link
 *     StorageSession#submitSyncOnCaller} syncs on its own thread when the log's I/O path is idle,
 *     instead of handing them to the I/O thread (RocksDB's write leader, for a group of one). Worth
 *     it when those operations complete before the submit call returns: the appender then reaches
 *     its durability level without waking any other thread; or when {@code completionThreadMayRunIo}
 *     holds: the appender then hands its write straight to the backend, not to the I/O thread. An
 *     appender that finds the active segment full also rolls it, and so may close a file.
 *     <p>A session that says yes must survive an interrupt of the calling thread during any
 *     operation: the interrupt is the appender's, not the log's, so it must neither fail the
 *     operation nor leave the session unusable (a {@code FileChannel} that an interrupt closed must
 *     be replaced, and a sync whose outcome the interrupt hid must be made again on a file
 *     descriptor that has seen every write-back error since the last sync). The calling thread's
 *     interrupt status is kept. Default false: only the I/O thread runs operations.
 * @param completionThreadMayRunIo whether the completion signal ({@link StorageBackend#open}) may
 *     run the log's I/O on the thread that signals: deliver completions with {@link
 *     StorageSession#poll} and submit the writes and syncs that follow them, there and then, instead
 *     of waking the log's I/O thread to do it. Worth it for a backend that completes operations on a
 *     thread of its own (an event loop) from which submitting is cheaper than from any other thread:
 *     a write, its sync and the acknowledgement then follow each other on that thread with no thread
 *     woken between them.
 *     <p>A session that says yes promises that, on the thread that signals, {@link
 *     StorageSession#submitWrite}, {@link StorageSession#submitSync} and {@link StorageSession#poll}
 *     neither block nor wait for a completion. The log then never calls the other methods there (file
 *     opens and closes, directory operations, allocation), never runs user code there, and runs these
 *     three only while it holds the log's I/O duty, so the SPI's one-thread-at-a-time rule still
 *     holds. The signal may also run on a thread that is submitting (an operation that completed
 *     before its submit call returned); the log copes with that. Default false: the signal only wakes
 *     the I/O thread.
 * @param overlappingWritesMax how many writes the session carries out at once, each overlapping the
 *     others, where {@code writesDurable} holds: the log then keeps up to that many (and at most
 *     {@code WalConfig.durableWritesInFlightMax}) group writes in flight, each its own group commit.
 *     A session whose writes complete in any order says how many it overlaps (an io_uring ring:
 *     many); one that carries out each write on the submitting thread before the call returns gains
 *     nothing from more, and says 1. The log never submits more writes at once than this says, and
 *     never two that touch the same block with direct I/O. At least 1; default 1.
 * @param durabilityNote what the session does differently from the options it was created with, so
 *     as to keep the durability they promise on this file system; for example, syncing with
 *     fdatasync where O_DSYNC writes are known not to be durable. It names the file system, the mode
 *     and what is done instead; the log reports it in its statistics and logs. Default null: nothing.
 */
public record StorageCapabilities(
        boolean directIo,
        boolean writesDurable,
        int blockSizeBytes,
        int maxInFlight,
        boolean callerMayRunIo,
        boolean completionThreadMayRunIo,
        int overlappingWritesMax,
        String durabilityNote) {
    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if {@code blockSizeBytes} is not a power of two, or {@code
     *     maxInFlight} or {@code overlappingWritesMax} is less than 1.
     */
    public StorageCapabilities {
        if (blockSizeBytes < 1 || Integer.bitCount(blockSizeBytes) != 1) {
            throw new IllegalArgumentException("blockSizeBytes must be a power of two: " + blockSizeBytes);
        }
        if (maxInFlight < 1) {
            throw new IllegalArgumentException("maxInFlight must be at least 1: " + maxInFlight);
        }
        if (overlappingWritesMax < 1) {
            throw new IllegalArgumentException("overlappingWritesMax must be at least 1: " + overlappingWritesMax);
        }
    }

    /**
     * The capabilities of a session that does what its options say, with the defaults for the
     * optional components: no caller or completion thread runs I/O, one write at a time, no note.
     *
     * @param options the options the session was created with: direct I/O, O_DSYNC and their block
     *     size.
     * @param maxInFlight the most operations the session accepts in flight at once.
     * @return the capabilities.
     */
    public static StorageCapabilities of(final StorageOptions options, final int maxInFlight) {
        return of(options.directIo(), options.dsync(), options.blockSizeBytes(), maxInFlight);
    }

    /**
     * The capabilities of a session, with the defaults for the optional components: no caller or
     * completion thread runs I/O, one write at a time, no note.
     *
     * @param directIo whether writes go around the page cache.
     * @param writesDurable whether a completed write is durable.
     * @param blockSizeBytes the alignment direct I/O requires.
     * @param maxInFlight the most operations in flight at once.
     * @return the capabilities.
     */
    public static StorageCapabilities of(
            final boolean directIo, final boolean writesDurable, final int blockSizeBytes, final int maxInFlight) {
        return new StorageCapabilities(directIo, writesDurable, blockSizeBytes, maxInFlight, false, false, 1, null);
    }

    /**
     * These capabilities with another {@code writesDurable}.
     *
     * @param value whether a completed write is durable.
     * @return the new capabilities.
     */
    public StorageCapabilities withWritesDurable(final boolean value) {
        return new StorageCapabilities(
                directIo,
                value,
                blockSizeBytes,
                maxInFlight,
                callerMayRunIo,
                completionThreadMayRunIo,
                overlappingWritesMax,
                durabilityNote);
    }

    /**
     * These capabilities with another {@code maxInFlight}.
     *
     * @param value the most operations in flight at once.
     * @return the new capabilities.
     */
    public StorageCapabilities withMaxInFlight(final int value) {
        return new StorageCapabilities(
                directIo,
                writesDurable,
                blockSizeBytes,
                value,
                callerMayRunIo,
                completionThreadMayRunIo,
                overlappingWritesMax,
                durabilityNote);
    }

    /**
     * These capabilities with another {@code callerMayRunIo}.
     *
     * @param value whether appenders may run writes and on-caller syncs.
     * @return the new capabilities.
     */
    public StorageCapabilities withCallerMayRunIo(final boolean value) {
        return new StorageCapabilities(
                directIo,
                writesDurable,
                blockSizeBytes,
                maxInFlight,
                value,
                completionThreadMayRunIo,
                overlappingWritesMax,
                durabilityNote);
    }

    /**
     * These capabilities with another {@code completionThreadMayRunIo}.
     *
     * @param value whether the signalling thread may run writes, syncs and polls.
     * @return the new capabilities.
     */
    public StorageCapabilities withCompletionThreadMayRunIo(final boolean value) {
        return new StorageCapabilities(
                directIo,
                writesDurable,
                blockSizeBytes,
                maxInFlight,
                callerMayRunIo,
                value,
                overlappingWritesMax,
                durabilityNote);
    }

    /**
     * These capabilities with another {@code overlappingWritesMax}.
     *
     * @param value how many writes the session overlaps.
     * @return the new capabilities.
     */
    public StorageCapabilities withOverlappingWritesMax(final int value) {
        return new StorageCapabilities(
                directIo,
                writesDurable,
                blockSizeBytes,
                maxInFlight,
                callerMayRunIo,
                completionThreadMayRunIo,
                value,
                durabilityNote);
    }

    /**
     * These capabilities with another {@code durabilityNote}.
     *
     * @param value the note, or null.
     * @return the new capabilities.
     */
    public StorageCapabilities withDurabilityNote(final String value) {
        return new StorageCapabilities(
                directIo,
                writesDurable,
                blockSizeBytes,
                maxInFlight,
                callerMayRunIo,
                completionThreadMayRunIo,
                overlappingWritesMax,
                value);
    }
}
