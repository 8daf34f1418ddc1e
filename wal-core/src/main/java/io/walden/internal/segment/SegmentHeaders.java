package io.walden.internal.segment;

import static io.walden.format.SegmentHeaderDescriptor.BASE_POSITION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.CAPACITY_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.DURABLE_POSITION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.FLAGS_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_CLOSED_CLEANLY;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_CONTINUED;
import static io.walden.format.SegmentHeaderDescriptor.FLAG_RECYCLED;
import static io.walden.format.SegmentHeaderDescriptor.FORMAT_VERSION;
import static io.walden.format.SegmentHeaderDescriptor.FRAME_ALIGNMENT_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_CHECKSUM_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_LENGTH;
import static io.walden.format.SegmentHeaderDescriptor.HEADER_LENGTH_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.LOG_ID_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.MAGIC;
import static io.walden.format.SegmentHeaderDescriptor.MAGIC_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.VERSION_OFFSET;
import static io.walden.format.SegmentHeaderDescriptor.WRITE_LIMIT_OFFSET;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDecoder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes segment headers as {@link io.walden.format.SegmentHeaderDescriptor} lays them out; {@link
 * SegmentHeaderDecoder} reads and checks them, and computes their checksum for both.
 *
 * <p><b>Threading:</b> stateless; safe from any thread.
 */
public final class SegmentHeaders {
    private SegmentHeaders() {}

    /** Fills a header block for a segment with no clean close recorded. */
    public static void write(
            final ByteBuffer block, final int segmentCapacityBytes, final long basePosition, final long logId) {
        // Whole: a write that failed part way may have left the block's limit where it stopped.
        block.clear();
        block.order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < HEADER_LENGTH; i += 8) {
            block.putLong(i, 0);
        }
        block.putLong(MAGIC_OFFSET, MAGIC);
        block.putInt(VERSION_OFFSET, FORMAT_VERSION);
        block.putInt(HEADER_LENGTH_OFFSET, HEADER_LENGTH);
        block.putLong(CAPACITY_OFFSET, segmentCapacityBytes);
        block.putLong(BASE_POSITION_OFFSET, basePosition);
        block.putLong(LOG_ID_OFFSET, logId);
        block.putInt(FRAME_ALIGNMENT_OFFSET, FrameDescriptor.FRAME_ALIGNMENT);
        block.putInt(HEADER_CHECKSUM_OFFSET, SegmentHeaderDecoder.checksum(block));
    }

    /** Records durable position, clean flag and checksum in a valid header, all in the first sector. */
    public static void writeState(final ByteBuffer block, final long durablePosition, final boolean closedCleanly) {
        final int otherFlags = block.getInt(FLAGS_OFFSET) & ~FLAG_CLOSED_CLEANLY;
        block.putInt(FLAGS_OFFSET, otherFlags | (closedCleanly ? FLAG_CLOSED_CLEANLY : 0));
        block.putLong(DURABLE_POSITION_OFFSET, durablePosition);
        block.putInt(HEADER_CHECKSUM_OFFSET, SegmentHeaderDecoder.checksum(block));
    }

    /** The write limit of a recycled segment's header, read from its file; 0 if none. Cold path. */
    public static int recycledLimit(final Path path) throws IOException {
        if (!Files.exists(path)) {
            return 0;
        }
        final ByteBuffer header = FileReads.readHeader(path);
        return header != null && SegmentHeaderDecoder.checksumMatches(header) && SegmentHeaderDecoder.recycled(header)
                ? SegmentHeaderDecoder.writeLimitOffset(header)
                : 0;
    }

    /** Marks a valid header block recycled, with a write limit. */
    public static void writeRecycled(final ByteBuffer block, final int writeLimitOffset) {
        block.putInt(FLAGS_OFFSET, block.getInt(FLAGS_OFFSET) | FLAG_RECYCLED);
        block.putInt(WRITE_LIMIT_OFFSET, writeLimitOffset);
        block.putInt(HEADER_CHECKSUM_OFFSET, SegmentHeaderDecoder.checksum(block));
    }

    /** Records write limit, continued flag and checksum in a valid header, all in the first sector. */
    public static void writeLimitAndContinued(
            final ByteBuffer block, final int writeLimitOffset, final boolean continued) {
        final int otherFlags = block.getInt(FLAGS_OFFSET) & ~FLAG_CONTINUED;
        block.putInt(FLAGS_OFFSET, otherFlags | (continued ? FLAG_CONTINUED : 0));
        block.putInt(WRITE_LIMIT_OFFSET, writeLimitOffset);
        block.putInt(HEADER_CHECKSUM_OFFSET, SegmentHeaderDecoder.checksum(block));
    }
}
