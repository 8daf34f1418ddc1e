package io.walden.internal.append;

import io.walden.Durability;
import io.walden.WalBatch;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;

/**
 * What an append is refused for before anything is claimed (a claimed frame that is never
 * published would stall the log): a record larger than {@code maxRecordBytes}, a batch whose frames
 * take more than such a record's, an empty batch, a null payload or durability level. Allocates nothing unless
 * it refuses.
 *
 * <p><b>Threading:</b> immutable; called by any appending thread.
 */
public final class RecordLimits {
    private final int maxRecordBytes;
    private final long maxFramedBytes;

    public RecordLimits(final int maxRecordBytes) {
        this.maxRecordBytes = maxRecordBytes;
        this.maxFramedBytes = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(maxRecordBytes));
    }

    public void checkLength(final int length) {
        if (length < 0 || length > maxRecordBytes) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "record of " + length + " bytes exceeds maxRecordBytes=" + maxRecordBytes
                            + "; raise WalConfig maxRecordBytes (and bufferCapacityBytes) or split the record");
        }
    }

    /** Refuses a null level: it would be taken for one of the three. */
    public static void checkDurability(final Durability durability) {
        if (durability == null) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG, "durability is null; pass Durability.BUFFERED, WRITTEN or SYNCED");
        }
    }

    /** Refuses a null payload with the argument named, not the JDK's message from deep inside. */
    public static void checkPayload(final Object payload) {
        if (payload == null) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "payload is null; pass the record's bytes (an empty record is a zero-length array or buffer)");
        }
    }

    /** Refuses a null batch with the argument named. */
    public static void checkBatchGiven(final WalBatch batch) {
        if (batch == null) {
            throw new WalException(WalException.ErrorCode.CONFIG, "batch is null; pass a WalBatch with its records");
        }
    }

    /** What the largest record, or batch, takes framed. */
    public int maxFramedBytes() {
        return (int) maxFramedBytes;
    }

    public int checkBatch(final WalBatch batch) {
        if (batch.isEmpty()) {
            throw new WalException(WalException.ErrorCode.CONFIG, "the batch holds no record; add records first");
        }
        if (batch.framedBytes() > maxFramedBytes) {
            throw new WalException(
                    WalException.ErrorCode.CONFIG,
                    "batch of " + batch.size() + " records takes " + batch.framedBytes()
                            + " bytes framed, more than the "
                            + maxFramedBytes + " bytes a record of maxRecordBytes=" + maxRecordBytes
                            + " takes; nothing was"
                            + " appended. Raise WalConfig maxRecordBytes (and bufferCapacityBytes) or make smaller"
                            + " batches");
        }
        return (int) batch.framedBytes();
    }
}
