package io.walden.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The frame checksum binds a frame to its position, its log and its length, as FORMAT.md says. */
class FrameChecksumTest {
    private static final long LOG_ID = 0x1234_5678_9abc_def0L;

    @Test
    void shouldMatchAnIndependentComputationOfTheDocumentedDefinition() {
        final ByteBuffer frame = frame(100);
        final int expected = reference(frame, 100 + FrameDescriptor.HEADER_LENGTH, 8192, LOG_ID);
        assertEquals(expected, new FrameChecksum(LOG_ID).compute(frame, 0, 100 + FrameDescriptor.HEADER_LENGTH, 8192));
    }

    @Test
    void shouldDifferWhenThePositionTheLogOrTheLengthDiffers() {
        final ByteBuffer frame = frame(64);
        final int length = 64 + FrameDescriptor.HEADER_LENGTH;
        final int base = new FrameChecksum(LOG_ID).compute(frame, 0, length, 4096);
        assertNotEquals(base, new FrameChecksum(LOG_ID).compute(frame, 0, length, 4096 + 8));
        assertNotEquals(base, new FrameChecksum(LOG_ID + 1).compute(frame, 0, length, 4096));
        assertNotEquals(base, new FrameChecksum(LOG_ID).compute(frame, 0, length - 8, 4096));
    }

    @Test
    void shouldCoverAShortPaddingFrameByItsBindingAlone() {
        final ByteBuffer frame = frame(0);
        final int expected = reference(frame, FrameDescriptor.SHORT_PADDING_LENGTH, 4096, LOG_ID);
        assertEquals(expected, new FrameChecksum(LOG_ID).compute(frame, 0, FrameDescriptor.SHORT_PADDING_LENGTH, 4096));
    }

    @Test
    void shouldLeaveTheBufferClearedForIndexedReads() {
        final ByteBuffer frame = frame(32);
        new FrameChecksum(LOG_ID).compute(frame, 0, 32 + FrameDescriptor.HEADER_LENGTH, 4096);
        assertEquals(0, frame.position());
        assertEquals(frame.capacity(), frame.limit());
    }

    private static ByteBuffer frame(final int payloadBytes) {
        final ByteBuffer frame = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
        frame.putInt(FrameDescriptor.LENGTH_OFFSET, FrameDescriptor.HEADER_LENGTH + payloadBytes);
        frame.putShort(FrameDescriptor.TYPE_OFFSET, FrameDescriptor.TYPE_DATA);
        for (int i = 0; i < payloadBytes; i++) {
            frame.put(FrameDescriptor.HEADER_LENGTH + i, (byte) (i * 7 + 1));
        }
        return frame;
    }

    /** CRC32C(position, logId, length as little-endian, then frame bytes [8, length)), computed plainly. */
    private static int reference(final ByteBuffer frame, final int frameLength, final long position, final long logId) {
        final ByteBuffer binding = ByteBuffer.allocate(20).order(ByteOrder.LITTLE_ENDIAN);
        binding.putLong(position).putLong(logId).putInt(frameLength);
        final CRC32C crc = new CRC32C();
        crc.update(binding.array());
        for (int i = FrameDescriptor.TYPE_OFFSET; i < frameLength; i++) {
            crc.update(frame.get(i));
        }
        return (int) crc.getValue();
    }
}
