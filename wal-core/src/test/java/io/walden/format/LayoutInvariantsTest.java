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
        assertEquals(FrameDescriptor.FLAGS_OFFSET + 2, FrameDescriptor.POSITION_LOW_OFFSET);
        assertEquals(FrameDescriptor.POSITION_LOW_OFFSET + 4, FrameDescriptor.HEADER_LENGTH);
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
        assertTrue(
                SegmentHeaderDescriptor.FRAME_ALIGNMENT_OFFSET + 4 <= SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET);
        assertEquals(0, SegmentHeaderDescriptor.HEADER_LENGTH % FrameDescriptor.FRAME_ALIGNMENT);
        assertEquals(0, WalConfig.SEGMENT_CAPACITY_BYTES_MIN % SegmentHeaderDescriptor.HEADER_LENGTH);
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
