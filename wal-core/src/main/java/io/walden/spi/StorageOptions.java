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
}
