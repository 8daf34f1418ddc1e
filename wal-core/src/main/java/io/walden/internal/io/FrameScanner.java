package io.walden.internal.io;

import static io.walden.format.FrameDescriptor.CHECKSUM_OFFSET;
import static io.walden.format.FrameDescriptor.DURABLE_OFFSET_OFFSET;
import static io.walden.format.FrameDescriptor.HEADER_LENGTH;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DATA;
import static io.walden.format.FrameDescriptor.TYPE_OFFSET;

import io.walden.format.FrameChecksum;
import io.walden.format.FrameDescriptor;
import io.walden.internal.state.Invariants;
import io.walden.internal.state.LogBuffer;
import io.walden.internal.state.StatsCounters;
import java.nio.ByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Finishes the frames appenders published and cuts them into write batches. Scanning a frame fills in
 * the durable offset (what was durable when it was framed: a valid frame on disk proves it) and then
 * the checksum, and counts it. Frames are scanned in log order and only while the next write stays
 * within one segment, one lap of the log buffer and the batch limit.
 *
 * <pre>
 *   submitted <= (block cut) <= scanned                 (log positions)
 *   [submitted, scanned): scanned, not yet submitted: the next write
 * </pre>
 *
 * <p>With direct I/O a long batch (the appenders are ahead) ends at the block cut, the last frame
 * boundary at or below the block floor of the scanned position, so that it writes whole blocks only
 * (no partial last block to rewrite); the frames past the cut go with the next batch.
 *
 * <p><b>Threading:</b> owned by the holder of the I/O duty.
 */
final class FrameScanner {
    private final LogBuffer logBuffer;
    private final UnsafeBuffer ring;
    private final ByteBuffer ringView;
    private final FrameChecksum checksum;
    private final StatsCounters stats;
    private final long segmentMask;
    private final long bufferMask;
    private final int maxBatchBytes;
    private final boolean directIo;
    private final long blockMask;

    private long scannedPosition;
    private long scannedRecords;
    // Direct I/O: the last frame boundary at or below the block floor of the scanned position, and
    // the records before it.
    private long blockCutPosition;
    private long blockCutRecords;
    // The highest durable position written into a frame's durable offset.
    private long provenPosition;
    // The records before the end of the batch batchEnd last chose.
    private long batchEndRecords;

    FrameScanner(
            final LogBuffer logBuffer,
            final FrameChecksum checksum,
            final StatsCounters stats,
            final long segmentCapacityBytes,
            final int maxBatchBytes,
            final int blockSizeBytes,
            final long endPosition) {
        this.logBuffer = logBuffer;
        this.ring = logBuffer.buffer();
        this.ringView = logBuffer.newByteBufferView();
        this.checksum = checksum;
        this.stats = stats;
        this.segmentMask = segmentCapacityBytes - 1;
        this.bufferMask = logBuffer.capacityBytes() - 1L;
        this.maxBatchBytes = maxBatchBytes;
        this.directIo = blockSizeBytes > 0;
        this.blockMask = directIo ? blockSizeBytes - 1L : 0;
        this.scannedPosition = endPosition;
        this.provenPosition = endPosition;
    }

    long position() {
        return scannedPosition;
    }

    long records() {
        return scannedRecords;
    }

    long provenPosition() {
        return provenPosition;
    }

    int scan(
            final long submittedPosition,
            final long releasedPosition,
            final long durablePosition,
            final long activeBase) {
        int frameCount = 0;
        long payloadBytes = 0;
        while (canScan(submittedPosition, releasedPosition)) {
            final int frameLength = logBuffer.frameLengthAcquire(scannedPosition);
            if (frameLength == 0) {
                break;
            }
            final int offset = logBuffer.offset(scannedPosition);
            if (Invariants.ENABLED) {
                checkPublishedFrame(frameLength, offset);
            }
            final long recordsBefore = scannedRecords;
            if (frameLength >= HEADER_LENGTH) {
                ring.putInt(offset + DURABLE_OFFSET_OFFSET, (int) (durablePosition - activeBase));
                provenPosition = durablePosition;
            }
            ring.putInt(offset + CHECKSUM_OFFSET, checksum.compute(ringView, offset, frameLength, scannedPosition));
            if (frameLength >= HEADER_LENGTH && ring.getShort(offset + TYPE_OFFSET) == TYPE_DATA) {
                scannedRecords++;
                payloadBytes += frameLength - HEADER_LENGTH;
            }
            final long frameEnd = scannedPosition + FrameDescriptor.alignedLength(frameLength);
            if (directIo && ((frameEnd ^ scannedPosition) & ~blockMask) != 0) {
                // The frame reaches a new block: the greatest boundary at or below that block's start
                // is the frame's end when it is block-aligned, else the frame's start.
                final boolean endAligned = (frameEnd & blockMask) == 0;
                blockCutPosition = endAligned ? frameEnd : scannedPosition;
                blockCutRecords = endAligned ? scannedRecords : recordsBefore;
            }
            scannedPosition = frameEnd;
            frameCount++;
        }
        if (frameCount > 0) {
            stats.recordScanned(scannedRecords, payloadBytes);
        }
        return frameCount;
    }

    boolean hasFrameToScan(final long submittedPosition, final long releasedPosition) {
        return canScan(submittedPosition, releasedPosition) && logBuffer.frameLengthAcquire(scannedPosition) != 0;
    }

    /**
     * Where the write from {@code start} ends: the scanned position, or, with direct I/O and a batch of
     * at least half the limit, the block cut; {@link #batchEndRecords()} gives its records.
     */
    long batchEnd(final long start) {
        final boolean blockCut = directIo
                && (scannedPosition & blockMask) != 0
                && scannedPosition - start >= maxBatchBytes / 2
                && blockCutPosition > start
                && blockCutPosition <= scannedPosition;
        batchEndRecords = blockCut ? blockCutRecords : scannedRecords;
        return blockCut ? blockCutPosition : scannedPosition;
    }

    long batchEndRecords() {
        return batchEndRecords;
    }

    /** The log rolled: scanning goes on at the first frame position, durable though no frame proves it. */
    void rollTo(final long firstFramePosition) {
        scannedPosition = firstFramePosition;
        provenPosition = firstFramePosition;
    }

    /**
     * Whether the frame at the scanned position may be examined now: not at a segment end (a roll comes
     * first), within the batch limit, not past the lap end of an unsubmitted batch (a write is contiguous
     * in the buffer), and below {@code released + capacity}, past which the buffer still holds the
     * previous lap's unreleased frames, whose lengths must never be read as newly published ones.
     */
    private boolean canScan(final long submittedPosition, final long releasedPosition) {
        return (scannedPosition & segmentMask) != 0
                && scannedPosition - submittedPosition < maxBatchBytes
                && ((scannedPosition & bufferMask) != 0 || scannedPosition == submittedPosition)
                && scannedPosition - releasedPosition < logBuffer.capacityBytes();
    }

    private void checkPublishedFrame(final int frameLength, final int offset) {
        final long lapRemaining = logBuffer.capacityBytes() - offset;
        Invariants.check(
                frameLength == SHORT_PADDING_LENGTH || (frameLength >= HEADER_LENGTH && frameLength <= lapRemaining),
                "frame length %d at position %d, %d bytes left in lap",
                frameLength,
                scannedPosition,
                lapRemaining);
    }
}
