package io.walden.spi;

/**
 * I/O options a backend is created with.
 *
 * @param directIo write around the page cache (O_DIRECT).
 * @param dsync make every write durable on completion (O_DSYNC).
 */
public record StorageOptions(boolean directIo, boolean dsync) {
    /** Buffered writes made durable by fdatasync: the default. */
    public static final StorageOptions BUFFERED = new StorageOptions(false, false);
    /** O_DIRECT writes made durable by fdatasync. */
    public static final StorageOptions DIRECT = new StorageOptions(true, false);
    /** Alignment of offsets, lengths and memory for direct I/O. */
    public static final int DIRECT_BLOCK_SIZE_BYTES = 4096;

    /**
     * The alignment a session with these options requires, as {@link StorageCapabilities#blockSizeBytes()}.
     *
     * @return {@link #DIRECT_BLOCK_SIZE_BYTES} with direct I/O, else 1.
     */
    public int blockSizeBytes() {
        return directIo ? DIRECT_BLOCK_SIZE_BYTES : 1;
    }
}
