package io.walden.internal.append;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.walden.WalBatch;
import io.walden.WalException;
import io.walden.format.FrameDescriptor;
import org.junit.jupiter.api.Test;

/** What an append is refused for before it claims anything, and the words it is refused with. */
class RecordLimitsTest {
    private static final int MAX_RECORD_BYTES = 1000;
    private final RecordLimits limits = new RecordLimits(MAX_RECORD_BYTES);

    @Test
    void shouldTakeRecordsUpToTheLimit() {
        limits.checkLength(0);
        limits.checkLength(MAX_RECORD_BYTES);
    }

    @Test
    void shouldRefuseARecordOverTheLimitNamingIt() {
        final WalException refused = assertThrows(WalException.class, () -> limits.checkLength(MAX_RECORD_BYTES + 1));

        assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
        assertEquals(
                "record of 1001 bytes exceeds maxRecordBytes=1000; raise WalConfig maxRecordBytes (and"
                        + " bufferCapacityBytes) or split the record",
                refused.getMessage());
        assertEquals(WalException.NO_LSN, refused.lsn());
    }

    @Test
    void shouldRefuseANegativeLength() {
        assertEquals(
                WalException.ErrorCode.CONFIG,
                assertThrows(WalException.class, () -> limits.checkLength(-1)).errorCode());
    }

    @Test
    void shouldRefuseANullLevel() {
        final WalException refused = assertThrows(WalException.class, () -> RecordLimits.checkDurability(null));

        assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
        assertEquals("durability is null; pass Durability.BUFFERED, WRITTEN or SYNCED", refused.getMessage());
    }

    @Test
    void shouldRefuseAnEmptyBatch() {
        final WalException refused = assertThrows(WalException.class, () -> limits.checkBatch(new WalBatch()));

        assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
        assertEquals("the batch holds no record; add records first", refused.getMessage());
    }

    @Test
    void shouldTakeABatchWhoseFramesTakeWhatALargestRecordTakes() {
        final int framed = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(MAX_RECORD_BYTES));
        final int half = FrameDescriptor.alignedLength(FrameDescriptor.frameLength(100));
        final WalBatch batch = new WalBatch().add(new byte[100]);
        // A second record that fills the largest record's frame exactly.
        batch.add(new byte[framed - half - FrameDescriptor.HEADER_LENGTH]);

        assertEquals(framed, limits.checkBatch(batch));
    }

    @Test
    void shouldRefuseABatchLargerThanALargestRecordNamingBoth() {
        final WalBatch batch = new WalBatch().add(new byte[600]).add(new byte[600]);

        final WalException refused = assertThrows(WalException.class, () -> limits.checkBatch(batch));

        assertEquals(WalException.ErrorCode.CONFIG, refused.errorCode());
        assertEquals(
                "batch of 2 records takes " + batch.framedBytes() + " bytes framed, more than the "
                        + FrameDescriptor.alignedLength(FrameDescriptor.frameLength(MAX_RECORD_BYTES))
                        + " bytes a record of maxRecordBytes=1000 takes; nothing was appended. Raise WalConfig"
                        + " maxRecordBytes (and bufferCapacityBytes) or make smaller batches",
                refused.getMessage());
    }
}
