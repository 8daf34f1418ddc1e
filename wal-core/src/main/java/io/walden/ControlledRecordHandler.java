package io.walden;

import org.agrona.DirectBuffer;

/**
 * Receives records from {@link WalReader#controlledPoll} and decides, record by record, whether the
 * poll goes on: a consumer that stops at a batch boundary, or that cannot take a record now and wants
 * it again later. Zero-copy, as {@link RecordHandler}.
 *
 * <p><b>Threading:</b> called on the thread that polls the reader.
 */
@FunctionalInterface
public interface ControlledRecordHandler {
    /** What the poll does after a record. */
    enum Action {
        /** Take the record and go on. */
        CONTINUE,
        /** Take the record and end the poll: the next poll starts after it. */
        BREAK,
        /** Do not take the record and end the poll: the next poll delivers it again. */
        ABORT
    }

    /**
     * @param buffer holds the payload.
     * @param offset index of the payload's first byte in {@code buffer}.
     * @param length payload length.
     * @param lsn the record's log position.
     * @return what the poll does next.
     */
    Action onRecord(DirectBuffer buffer, int offset, int length, long lsn);
}
