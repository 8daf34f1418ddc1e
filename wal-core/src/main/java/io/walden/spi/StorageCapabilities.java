package io.walden.spi;

/**
 * What a {@link StorageSession} can do and how the log must drive it: its I/O mode, its limits and
 * which threads may run its operations. The log reads it once, when the session is opened, so it
 * must not change while the session is open. Build one with {@link #of(StorageOptions, int)} and
 * change the optional components with the {@code with...} methods.
 *
 * <p><b>Threading:</b> immutable.
 *
 * @param directIo whether writes go around the page cache (O_DIRECT); then every write's file
 *     offset, length and memory address are multiples of {@code blockSizeBytes}.
 * @param writesDurable whether a completed write is already durable (O_DSYNC or equivalent), with
 *     no sync needed.
 * @param blockSizeBytes the alignment direct I/O requires, a power of two; 1 without direct I/O
 *     ({@link StorageOptions#blockSizeBytes()}).
 * @param maxInFlight the most operations the session accepts in flight at once, at least 1.
 * @param callerMayRunIo whether an appender may run the session's writes and {@link
 *     StorageSession#submitSyncOnCaller} syncs on its own thread while the log's I/O path is idle
 *     (worth it where they complete before the submit call returns, or with {@code
 *     completionThreadMayRunIo}); such an appender may also roll the segment, and so close a file.
 *     The session must then survive an interrupt of the calling thread during any operation,
 *     neither failing it nor becoming unusable (a {@code FileChannel} the interrupt closed is
 *     replaced; a sync whose outcome it hid is made again on a descriptor that has seen every
 *     write-back error since the last sync), and keep the thread's interrupt status. Default false.
 * @param completionThreadMayRunIo whether the completion signal ({@link StorageBackend#open}) may
 *     deliver completions with {@link StorageSession#poll} and submit the writes and syncs that
 *     follow, on the signalling thread, instead of waking the I/O thread (worth it for a backend
 *     with an event loop of its own). The session then promises that on that thread {@link
 *     StorageSession#submitWrite}, {@link StorageSession#submitSync} and {@code poll} neither block
 *     nor wait for a completion; the log calls nothing else there, runs no user code there, and
 *     calls these only while it holds the log's I/O duty. The signal may also run on a submitting
 *     thread. Default false.
 * @param overlappingWritesMax how many writes the session carries out at once where {@code
 *     writesDurable} holds: the log keeps up to that many (and at most {@code
 *     WalConfig.durableWritesInFlightMax}) group writes in flight, each its own group commit, never
 *     two that touch the same block with direct I/O. A session that completes each write before the
 *     submit call returns says 1. At least 1; default 1.
 * @param durabilityNote what the session does differently from its options to keep their durability
 *     on this file system (for example fdatasync where O_DSYNC writes are not durable), naming the
 *     file system, the mode and what is done instead; the log reports it in its statistics and
 *     logs. Default null.
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
     * @param options the options the session was created with.
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
