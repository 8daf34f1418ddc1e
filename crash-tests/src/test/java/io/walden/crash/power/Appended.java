package io.walden.crash.power;

import io.walden.testing.TestRecords;

/**
 * A record the log gave an LSN: which writer appended it, its sequence number and length. The payload
 * is {@link TestRecords#tagged}{@code (writer, sequence, lengthBytes)}, so it need not be kept.
 *
 * @param lsn its position.
 * @param writer who appended it.
 * @param sequence the writer's sequence number.
 * @param lengthBytes its payload length.
 */
record Appended(long lsn, int writer, int sequence, int lengthBytes) {
    /**
     * Identifies a record read back, checking every byte of its payload.
     *
     * @param read the record read.
     * @return what it is.
     * @throws AssertionError if the payload is not intact.
     */
    static Appended of(final TestRecords.Read read) {
        final TestRecords.Tag tag = TestRecords.verify(read.payload());
        return new Appended(read.lsn(), tag.writer(), tag.sequence(), read.payload().length);
    }

    @Override
    public String toString() {
        return "lsn " + lsn + " (writer " + writer + " #" + sequence + ", " + lengthBytes + " B)";
    }
}
