package io.walden;

import io.walden.format.FrameDescriptor;
import io.walden.internal.append.FramePublisher;
import io.walden.internal.codec.EncodeSlot;
import io.walden.internal.state.LogBuffer;

/**
 * Publishes the frames of a batch: here, where the batch's payload buffer, offsets and LSNs are
 * visible. A batch some of whose records an encoder stored encoded publishes those from the encoder.
 *
 * <p><b>Threading:</b> stateless; called by the appending thread, on the space it claimed.
 */
final class BatchFrames {
    /** A batch stored as given. */
    static final FramePublisher<WalBatch> PLAIN = BatchFrames::publishPlain;
    /** A batch an {@link EncodeSlot} encoded, record by record. */
    static final FramePublisher<EncodeSlot> ENCODED = BatchFrames::publishEncoded;

    private BatchFrames() {}

    private static long publishPlain(
            final LogBuffer logBuffer, final long lsn, final WalBatch batch, final int offset, final int length) {
        batch.appendedAt(lsn);
        final int last = batch.size() - 1;
        for (int i = 0; i <= last; i++) {
            logBuffer.publishBatchRecord(batch.lsn(i), batch.payloads(), batch.offset(i), batch.length(i), i < last);
        }
        return batch.lsn(last);
    }

    private static long publishEncoded(
            final LogBuffer logBuffer, final long lsn, final EncodeSlot slot, final int offset, final int length) {
        final WalBatch batch = slot.batch();
        batch.appendedAt(lsn, slot.storedLengths());
        final int last = batch.size() - 1;
        for (int i = 0; i <= last; i++) {
            final short continues = i < last ? FrameDescriptor.FLAG_BATCH_CONTINUES : 0;
            final int at = slot.outputOffset(i);
            if (at == EncodeSlot.PLAIN) {
                logBuffer.publishWithFlags(batch.lsn(i), batch.payloads(), batch.offset(i), batch.length(i), continues);
            } else {
                logBuffer.publishWithFlags(
                        batch.lsn(i), slot.output(), at, slot.storedLength(i), (short) (continues | slot.codecFlags()));
            }
        }
        return batch.lsn(last);
    }
}
