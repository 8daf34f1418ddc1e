package io.walden.internal.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** Claiming in the log buffer: exact back-pressure, padding at a lap end, skipping segment headers. */
class LogBufferTest {
    private static final int CAPACITY = 64 * 1024;
    private static final int SEGMENT = 128 * 1024;
    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;

    @Test
    void shouldRefuseAClaimThatDoesNotFitAndLeaveTheTailUnchanged() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, SEGMENT, HEADER, HEADER)) {
            final int frame = 16 * 1024;
            assertEquals(HEADER, buffer.claim(frame));
            assertEquals(HEADER + frame, buffer.claim(frame));
            assertEquals(HEADER + 2 * frame, buffer.claim(frame));
            // 4096 + 3 * 16384 = 53248; a fourth frame would need to go past the lap and the buffer.
            final long tail = buffer.tailPosition();
            assertEquals(LogBuffer.BACK_PRESSURED, buffer.claim(frame));
            assertEquals(tail, buffer.tailPosition());
        }
    }

    @Test
    void shouldPadToTheLapEndAndSkipTheNextSegmentHeaderWhenTheLapEndsASegment() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, CAPACITY, HEADER, HEADER)) {
            final int frame = 24 * 1024;
            assertEquals(HEADER, buffer.claim(frame));
            assertEquals(HEADER + frame, buffer.claim(frame));
            buffer.release(HEADER + 2L * frame);
            // 4096 + 2 * 24576 = 53248; 53248 + 24576 > 65536: pad to the segment end, skip the header.
            final long position = buffer.claim(frame);
            assertEquals(CAPACITY + HEADER, position);
            final UnsafeBuffer ring = buffer.buffer();
            final int paddingOffset = HEADER + 2 * frame;
            assertEquals(CAPACITY - paddingOffset, ring.getInt(paddingOffset + FrameDescriptor.LENGTH_OFFSET));
            assertEquals(FrameDescriptor.TYPE_PADDING, ring.getShort(paddingOffset + FrameDescriptor.TYPE_OFFSET));
        }
    }

    @Test
    void shouldWriteAShortPaddingIntoAnEightByteGap() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, SEGMENT, HEADER, HEADER)) {
            // Fill the first lap but for 8 bytes, in two aligned frames that each fit in half the buffer.
            assertEquals(HEADER, buffer.claim(30712));
            assertEquals(HEADER + 30712, buffer.claim(30720));
            buffer.release(CAPACITY - 8);
            assertEquals(CAPACITY, buffer.claim(16));
            assertEquals(8, buffer.buffer().getInt(CAPACITY - 8));
        }
    }

    @Test
    void shouldStopClaimsOnceClosed() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, SEGMENT, HEADER, HEADER)) {
            assertTrue(buffer.claim(64) >= 0);
            final long finalTail = buffer.closeTail();
            assertEquals(LogBuffer.CLOSED, buffer.claim(64));
            assertEquals(finalTail, buffer.tailPosition());
            assertTrue(buffer.isTailClosed());
        }
    }

    @Test
    void shouldZeroWhatItReleasesAndNothingElse() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, SEGMENT, HEADER, HEADER)) {
            final UnsafeBuffer ring = buffer.buffer();
            final byte[] payload = new byte[100];
            Arrays.fill(payload, (byte) 0x5A);
            final long first = buffer.claim(FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + 100));
            buffer.publish(first, payload, 0, payload.length);
            final long second = buffer.claim(FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + 100));
            buffer.publish(second, payload, 0, payload.length);
            final byte[] big = new byte[4000];
            Arrays.fill(big, (byte) 0x6B);
            final long third = buffer.claim(FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + 4000));
            buffer.publish(third, big, 0, big.length);
            final long end = third + FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + 4000);

            buffer.release(second);
            assertZero(ring, buffer.offset(first), (int) (second - first));
            assertEquals(
                    0x5A, ring.getByte(buffer.offset(second) + FrameDescriptor.HEADER_LENGTH), "beyond the release");
            // A long range, zeroed another way.
            buffer.release(end);
            assertZero(ring, buffer.offset(second), (int) (end - second));
        }
    }

    private static void assertZero(final UnsafeBuffer ring, final int offset, final int length) {
        for (int i = 0; i < length; i++) {
            assertEquals(0, ring.getByte(offset + i), "byte " + i + " of a released range of " + length);
        }
    }
}
