package io.walden.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.walden.format.FrameChecksum;
import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.StatsCounters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the scanner fills into each frame, where it stops (an unpublished frame, the batch limit, the
 * lap end of an unsubmitted batch, the segment end) and where a direct I/O batch is cut.
 */
class FrameScannerTest {
    private static final int CAPACITY = 64 * 1024;
    private static final int SEGMENT = 128 * 1024;
    private static final int HEADER = SegmentHeaderDescriptor.HEADER_LENGTH;
    private static final int MAX_BATCH = 16 * 1024;
    private static final long LOG_ID = 0x5eed;

    private final FrameChecksum checksum = new FrameChecksum(LOG_ID);
    private final StatsCounters stats = new StatsCounters();
    private LogBuffer buffer;

    @AfterEach
    void close() {
        buffer.close();
    }

    @Test
    void shouldFillInTheDurableOffsetAndChecksumAndStopAtAnUnpublishedFrame() {
        final FrameScanner scanner = scanner(0, HEADER);
        final long first = claimAndPublish(100);
        final long second = buffer.claim(FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + 100));
        claimAndPublish(100);
        final long durable = HEADER;
        assertEquals(1, scanner.scan(HEADER, HEADER, durable, 0));
        assertEquals(second, scanner.position());
        assertEquals(1, scanner.records());
        assertEquals(durable, scanner.provenPosition());
        final int offset = buffer.offset(first);
        assertEquals((int) durable, buffer.buffer().getInt(offset + FrameDescriptor.DURABLE_OFFSET_OFFSET));
        final int frameLength = buffer.frameLengthAcquire(first);
        assertEquals(
                checksum.compute(buffer.newByteBufferView(), offset, frameLength, first),
                buffer.buffer().getInt(offset + FrameDescriptor.CHECKSUM_OFFSET));
        assertEquals(0, scanner.scan(HEADER, HEADER, durable, 0), "the second frame is claimed, not published");
        assertFalse(scanner.hasFrameToScan(HEADER, HEADER));

        buffer.publish(second, new byte[100], 0, 100);
        assertTrue(scanner.hasFrameToScan(HEADER, HEADER));
        assertEquals(2, scanner.scan(HEADER, HEADER, second, 0));
        assertEquals(3, scanner.records());
        assertEquals(3, stats.appendsTotal());
        assertEquals(300, stats.appendBytesTotal());
        assertEquals(second, scanner.provenPosition());
    }

    @Test
    void shouldStopAtTheBatchLimit() {
        final FrameScanner scanner = scanner(0, HEADER);
        final int payload = 4096 - FrameDescriptor.HEADER_LENGTH;
        for (int i = 0; i < 6; i++) {
            claimAndPublish(payload);
        }
        assertEquals(4, scanner.scan(HEADER, HEADER, HEADER, 0), "4 frames of 4 KiB fill the 16 KiB batch");
        assertEquals(0, scanner.scan(HEADER, HEADER, HEADER, 0));
        final long submitted = scanner.position();
        assertEquals(2, scanner.scan(submitted, HEADER, HEADER, 0), "the next batch starts where a write starts");
    }

    @Test
    void shouldStopAtTheLapEndUntilTheBatchBeforeItIsSubmitted() {
        // Start 4 KiB before the lap end, so that the batch limit does not come first.
        final long start = CAPACITY - 4096;
        final FrameScanner scanner = scanner(0, start);
        final int payload = 2048 - FrameDescriptor.HEADER_LENGTH;
        claimAndPublish(payload);
        claimAndPublish(payload);
        claimAndPublish(payload);
        assertEquals(2, scanner.scan(start, start, start, 0), "a write must be contiguous in the buffer");
        assertEquals(CAPACITY, scanner.position());
        assertFalse(scanner.hasFrameToScan(start, start));
        assertEquals(1, scanner.scan(CAPACITY, start, start, 0));
    }

    @Test
    void shouldStopAtTheSegmentEnd() {
        final long start = SEGMENT - 4096;
        final FrameScanner scanner = scanner(0, start);
        final int payload = 2048 - FrameDescriptor.HEADER_LENGTH;
        claimAndPublish(payload);
        claimAndPublish(payload);
        final long next = claimAndPublish(payload);
        assertEquals(SEGMENT + HEADER, next, "the next frame is in the next segment");
        assertEquals(2, scanner.scan(start, start, start, 0));
        assertEquals(0, scanner.scan(SEGMENT, start, start, 0), "a roll comes first");
        scanner.rollTo(SEGMENT + HEADER);
        assertEquals(SEGMENT + HEADER, scanner.provenPosition());
        assertEquals(1, scanner.scan(SEGMENT + HEADER, start, SEGMENT + HEADER, SEGMENT));
    }

    @Test
    void shouldNotCountPaddingAsRecords() {
        final long start = CAPACITY - 1024;
        final FrameScanner scanner = scanner(0, start);
        claimAndPublish(2048);
        assertEquals(1, scanner.scan(start, start, start, 0), "the padding to the lap end");
        assertEquals(0, scanner.records());
        assertEquals(1, scanner.scan(CAPACITY, start, start, 0));
        assertEquals(1, scanner.records());
    }

    @Test
    void shouldCutALongDirectBatchAtTheLastWholeBlock() {
        final int block = 4096;
        final FrameScanner scanner = scanner(block, HEADER);
        final int payload = 1000 - FrameDescriptor.HEADER_LENGTH;
        for (int i = 0; i < 5; i++) {
            claimAndPublish(payload);
        }
        assertEquals(5, scanner.scan(HEADER, HEADER, HEADER, 0));
        final long scanned = scanner.position();
        assertEquals(HEADER + 5 * 1000, scanned);
        // 5,000 bytes, less than half the batch limit: the whole batch, partial block and all.
        assertEquals(scanned, scanner.batchEnd(HEADER));
        assertEquals(5, scanner.batchEndRecords());

        for (int i = 0; i < 20; i++) {
            claimAndPublish(payload);
        }
        assertEquals(12, scanner.scan(HEADER, HEADER, HEADER, 0), "until the batch reaches the 16 KiB limit");
        assertEquals(HEADER + 17 * 1000, scanner.position());
        // The block floor of 21,096 is 20,480; the last frame boundary at or below it ends frame 16.
        assertEquals(HEADER + 16 * 1000, scanner.batchEnd(HEADER));
        assertEquals(16, scanner.batchEndRecords());
        // The next write starts at the cut; it is short, so it takes everything scanned.
        assertEquals(HEADER + 17 * 1000, scanner.batchEnd(HEADER + 16 * 1000));
        assertEquals(17, scanner.batchEndRecords());
    }

    private FrameScanner scanner(final int blockSizeBytes, final long endPosition) {
        final long released = blockSizeBytes > 0 ? endPosition & ~(blockSizeBytes - 1L) : endPosition;
        buffer = new LogBuffer(CAPACITY, SEGMENT, endPosition, released);
        return new FrameScanner(buffer, checksum, stats, SEGMENT, MAX_BATCH, blockSizeBytes, endPosition);
    }

    private long claimAndPublish(final int payloadBytes) {
        final long position = buffer.claim(FrameDescriptor.alignedLength(FrameDescriptor.HEADER_LENGTH + payloadBytes));
        assertTrue(position >= 0, "claim refused: " + position);
        buffer.publish(position, new byte[payloadBytes], 0, payloadBytes);
        return position;
    }
}
