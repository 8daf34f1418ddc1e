package io.walden;

/**
 * Reads a log's records in LSN order from a starting position, zero-copy, and can follow a live
 * log. By default a reader sees only durable records; one opened with {@link Durability#WRITTEN}
 * also sees records that are written but not yet synced.
 *
 * <p>A reader reads segment files with large positional reads into its own direct buffer and hands
 * out views of that buffer: there is no copy per record and no allocation per record. Every frame's
 * checksum is verified before it is handed out.
 *
 * <p><b>Threading:</b> not thread-safe; use a reader from one thread at a time. Any number of
 * readers may read one log concurrently with its writers.
 */
public interface WalReader extends AutoCloseable {
    /**
     * Delivers up to {@code limit} records that are visible now, without waiting.
     *
     * @param handler receives the records.
     * @param limit the most records to deliver.
     * @return how many were delivered; zero when caught up.
     * @throws WalException if the records were truncated away or are corrupt.
     */
    int poll(RecordHandler handler, int limit);

    /**
     * Delivers every record visible at the time of the call, blocking on reads as needed.
     *
     * @param handler receives the records.
     * @return how many were delivered.
     * @throws WalException if the records were truncated away or are corrupt.
     */
    long replay(RecordHandler handler);

    /**
     * Position of the next record this reader will deliver.
     *
     * @return the position.
     */
    long position();

    /** Releases the reader's file and buffer. Idempotent. */
    @Override
    void close();
}
