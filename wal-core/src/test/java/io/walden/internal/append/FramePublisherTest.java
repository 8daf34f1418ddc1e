package io.walden.internal.append;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.state.LogBuffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/** Each kind of payload publishes the same frame, from the region it names, and reports its LSN. */
class FramePublisherTest {
    private static final int CAPACITY = 64 * 1024;
    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final byte[] HELD = "..hello, log..".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RECORD = "hello, log".getBytes(StandardCharsets.US_ASCII);

    @Test
    void shouldPublishARegionOfAnArray() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, CAPACITY, HEADER, HEADER)) {
            final long lsn = claim(buffer);

            assertEquals(lsn, FramePublisher.BYTES.publish(buffer, lsn, HELD, 2, RECORD.length));

            assertFrame(buffer, lsn);
        }
    }

    @Test
    void shouldPublishAByteBufferFromPositionToLimitLeavingBoth() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, CAPACITY, HEADER, HEADER)) {
            final ByteBuffer payload = ByteBuffer.allocateDirect(HELD.length).put(HELD);
            payload.position(2).limit(2 + RECORD.length);
            final long lsn = claim(buffer);

            assertEquals(lsn, FramePublisher.BYTE_BUFFER.publish(buffer, lsn, payload, 0, RECORD.length));

            assertFrame(buffer, lsn);
            assertEquals(2, payload.position());
            assertEquals(2 + RECORD.length, payload.limit());
        }
    }

    @Test
    void shouldPublishARegionOfADirectBuffer() {
        try (LogBuffer buffer = new LogBuffer(CAPACITY, CAPACITY, HEADER, HEADER)) {
            final long lsn = claim(buffer);

            assertEquals(
                    lsn, FramePublisher.DIRECT_BUFFER.publish(buffer, lsn, new UnsafeBuffer(HELD), 2, RECORD.length));

            assertFrame(buffer, lsn);
        }
    }

    private static long claim(final LogBuffer buffer) {
        return buffer.claim(FrameDescriptor.alignedLength(FrameDescriptor.frameLength(RECORD.length)));
    }

    private static void assertFrame(final LogBuffer buffer, final long lsn) {
        assertEquals(FrameDescriptor.frameLength(RECORD.length), buffer.frameLengthAcquire(lsn));
        final UnsafeBuffer ring = buffer.buffer();
        final int offset = buffer.offset(lsn);
        assertEquals(FrameDescriptor.TYPE_DATA, ring.getShort(offset + FrameDescriptor.TYPE_OFFSET));
        assertEquals(0, ring.getShort(offset + FrameDescriptor.FLAGS_OFFSET));
        final byte[] payload = new byte[RECORD.length];
        ring.getBytes(offset + FrameDescriptor.HEADER_LENGTH, payload);
        assertArrayEquals(RECORD, payload);
    }
}
