package io.walden;

import org.agrona.DirectBuffer;

/**
 * Receives records from a {@link WalReader}, zero-copy: the buffer is a view of the reader's read
 * buffer and is valid only during the call. Copy what must outlive it.
 *
 * <p><b>Threading:</b> called on the thread that polls the reader.
 */
@FunctionalInterface
public interface RecordHandler {
    /**
     * @param buffer holds the payload.
     * @param offset index of the payload's first byte in {@code buffer}.
     * @param length payload length.
     * @param lsn the record's log position.
     */
    void onRecord(DirectBuffer buffer, int offset, int length, long lsn);
}
