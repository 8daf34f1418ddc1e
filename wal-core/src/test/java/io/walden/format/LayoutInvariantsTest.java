package io.walden.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.WalConfig;
import org.junit.jupiter.api.Test;

/** The layout rules the descriptors check at class initialization, repeated where a test shows them. */
class LayoutInvariantsTest {
    @Test
    void frameHeaderFieldsAreContiguousAlignedAndEndAtTheHeaderLength() {
        assertEquals(0, FrameDescriptor.LENGTH_OFFSET);
        assertEquals(FrameDescriptor.LENGTH_OFFSET + 4, FrameDescriptor.CHECKSUM_OFFSET);
        assertEquals(FrameDescriptor.CHECKSUM_OFFSET + 4, FrameDescriptor.TYPE_OFFSET);
        assertEquals(FrameDescriptor.TYPE_OFFSET + 2, FrameDescriptor.FLAGS_OFFSET);
        assertEquals(FrameDescriptor.FLAGS_OFFSET + 2, FrameDescriptor.DURABLE_OFFSET_OFFSET);
        assertEquals(FrameDescriptor.DURABLE_OFFSET_OFFSET + 4, FrameDescriptor.HEADER_LENGTH);
        assertEquals(0, FrameDescriptor.HEADER_LENGTH % FrameDescriptor.FRAME_ALIGNMENT);
        assertEquals(FrameDescriptor.FRAME_ALIGNMENT, FrameDescriptor.SHORT_PADDING_LENGTH);
        assertEquals(8 + 8 + 4, FrameDescriptor.BINDING_LENGTH);
    }

    @Test
    void lengthAndChecksumShareTheFirstAlignedWordSoAShortPaddingIsValidatable() {
        assertTrue(FrameDescriptor.CHECKSUM_OFFSET + 4 <= FrameDescriptor.SHORT_PADDING_LENGTH);
    }

    @Test
    void segmentHeaderFillsOneBlockAndItsChecksumCoversEveryFieldBeforeIt() {
        assertEquals(4096, SegmentHeaderDescriptor.HEADER_LENGTH);
        assertEquals(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET, SegmentHeaderDescriptor.CHECKSUMMED_LENGTH);
        assertEquals(SegmentHeaderDescriptor.FRAME_ALIGNMENT_OFFSET + 4, SegmentHeaderDescriptor.FLAGS_OFFSET);
        assertEquals(SegmentHeaderDescriptor.FLAGS_OFFSET + 4, SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET);
        assertEquals(SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET + 8, SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET);
        assertEquals(SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET + 4, SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET);
        assertEquals(0, SegmentHeaderDescriptor.HEADER_LENGTH % FrameDescriptor.FRAME_ALIGNMENT);
        assertEquals(0, WalConfig.SEGMENT_CAPACITY_BYTES_MIN % SegmentHeaderDescriptor.HEADER_LENGTH);
    }

    @Test
    void theFieldsAClearOrCleanCloseRewritesLieInTheFirstSectorSoTheRewriteCannotTear() {
        assertTrue(SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET + 4 <= 512);
        assertEquals(3, SegmentHeaderDescriptor.FORMAT_VERSION);
    }

    @Test
    void aDiscardFrameIsChecksummedOverItsHeaderOnlyAndEveryOtherFrameWhole() {
        assertEquals(
                FrameDescriptor.HEADER_LENGTH,
                FrameDescriptor.checksummedLength(1 << 20, FrameDescriptor.TYPE_DISCARD));
        assertEquals(1 << 20, FrameDescriptor.checksummedLength(1 << 20, FrameDescriptor.TYPE_DATA));
        assertEquals(4096, FrameDescriptor.checksummedLength(4096, FrameDescriptor.TYPE_PADDING));
        assertEquals(
                FrameDescriptor.SHORT_PADDING_LENGTH,
                FrameDescriptor.checksummedLength(FrameDescriptor.SHORT_PADDING_LENGTH, FrameDescriptor.TYPE_DISCARD));
    }

    @Test
    void alignedLengthRoundsUpToEightBytes() {
        assertEquals(16, FrameDescriptor.alignedLength(FrameDescriptor.frameLength(0)));
        assertEquals(24, FrameDescriptor.alignedLength(FrameDescriptor.frameLength(1)));
        assertEquals(120, FrameDescriptor.alignedLength(FrameDescriptor.frameLength(100)));
        assertEquals(144, FrameDescriptor.alignedLength(FrameDescriptor.frameLength(128)));
    }

    @Test
    void magicSpellsWaldnsegInLittleEndian() {
        final byte[] bytes = new byte[8];
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (SegmentHeaderDescriptor.MAGIC >>> (8 * i));
        }
        assertEquals("WALDNSEG", new String(bytes, java.nio.charset.StandardCharsets.US_ASCII));
    }
}
