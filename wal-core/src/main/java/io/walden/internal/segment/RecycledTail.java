package io.walden.internal.segment;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.state.AlignedBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The clean close of a recycled segment ({@link SegmentHeaderDescriptor#FLAG_RECYCLED}): every byte
 * after the clean end must read as zero, but the body holds stale bytes up to the write limit. So the
 * close writes zeros from the clean end to the end of its block, syncs them, and only then records that
 * block end as the limit in the header; without the sync a power loss could keep the header and lose
 * the zeros (docs/design/recycling.md).
 *
 * <p><b>Threading:</b> stateless; called by the thread that closes the segment.
 */
public final class RecycledTail {
    private RecycledTail() {}

    /** Zeroes and syncs the rest of the clean end's block; returns the write limit to record. */
    public static int closeAt(
            final BlockingIo io,
            final boolean directIo,
            final int handle,
            final long endOffset,
            final int capacityBytes)
            throws IOException {
        final int alignment = SegmentHeaderDescriptor.WRITE_LIMIT_ALIGNMENT;
        final long blockEnd = Math.min(capacityBytes, (endOffset + alignment - 1) & -(long) alignment);
        if (blockEnd > endOffset && !directIo) {
            try (AlignedBuffer zeros = new AlignedBuffer(alignment)) {
                final ByteBuffer block = zeros.buffer();
                io.write(handle, endOffset, block, (int) (blockEnd - endOffset));
            }
            io.sync(handle);
        }
        return (int) Math.max(SegmentHeaderDescriptor.HEADER_LENGTH, blockEnd);
    }
}
