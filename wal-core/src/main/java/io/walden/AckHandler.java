package io.walden;

/**
 * Receives the acknowledgements of an {@link AsyncAppender}'s records, on the thread that calls {@link
 * AsyncAppender#poll}, in the order the records were appended (their positions' order).
 *
 * <p>A handler may append more records through the same appender (a reply that is itself logged); it
 * must not call {@code poll} again from inside a call. An exception it throws leaves {@code poll} at
 * once: the record it was called for counts as delivered, the rest stay pending for the next poll.
 */
public interface AckHandler {
    /**
     * The record reached the level it was appended with.
     *
     * @param lsn the record's LSN, as {@code append} returned it.
     * @param tag what the producer gave {@code append} for it.
     */
    void acknowledged(long lsn, long tag);

    /**
     * The log failed, or closed, before the record reached its level. The exception is the one a
     * blocking {@link Wal#append(byte[], Durability)} of the record would have thrown: its {@link
     * WalException#errorCode()}, the record's LSN, and that the record is in the log but whether it
     * reached the disk is unknown. Every record after it fails too.
     *
     * @param lsn the record's LSN.
     * @param tag what the producer gave {@code append} for it.
     * @param failure what is known.
     */
    void failed(long lsn, long tag, WalException failure);
}
