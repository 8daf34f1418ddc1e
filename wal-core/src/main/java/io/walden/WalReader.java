package io.walden;

/**
 * Reads a log's records in LSN order from a starting position, zero-copy, and can follow a live
 * log. By default a reader sees only durable records; one opened with {@link Durability#WRITTEN}
 * also sees records that are written but not yet synced.
 *
 * <p>A reader reads segment files with large positional reads into its own direct buffer and hands out
 * views of it, with no copy or allocation per record; every frame's checksum is verified first.
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
     * Delivers up to {@code limit} records, waiting up to a timeout for the first one to become
     * visible: a consumer follows a live log without spinning. Allocates nothing.
     *
     * @param handler receives the records.
     * @param limit the most records to deliver.
     * @param timeoutNs the longest wait for a first record; zero does not wait.
     * @return how many were delivered; zero when none became visible in time.
     * @throws WalException if the records were truncated away or are corrupt, or the log failed.
     */
    int poll(RecordHandler handler, int limit, long timeoutNs);

    /**
     * Delivers up to {@code limit} records that are visible now, letting the handler end the poll
     * after a record ({@link ControlledRecordHandler.Action#BREAK}) or before it ({@link
     * ControlledRecordHandler.Action#ABORT}, which leaves the record for the next poll).
     *
     * @param handler receives the records and steers the poll.
     * @param limit the most records to deliver.
     * @return how many were taken (an aborted record is not counted).
     * @throws WalException if the records were truncated away or are corrupt.
     */
    int controlledPoll(ControlledRecordHandler handler, int limit);

    /**
     * Moves the reader to another record, keeping its buffer and files: cheaper than a new reader.
     *
     * @param lsn the record to read next, as an append returned it, or the log's start position.
     * @throws WalException if the position was truncated away or lies beyond the log's end.
     */
    void seek(long lsn);

    /**
     * Delivers every record visible at the time of the call, blocking on reads as needed.
     *
     * @param handler receives the records.
     * @return how many were delivered.
     * @throws WalException if the records were truncated away or are corrupt.
     */
    long replay(RecordHandler handler);

    /** @return the position of the next record this reader will deliver. */
    long position();

    /** Releases the reader's file and buffer. Idempotent. */
    @Override
    void close();
}
