package io.walden.internal.segment;

import io.walden.format.SegmentHeaderDescriptor;
import io.walden.internal.state.AlignedBuffer;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The clean close of a recycled segment ({@link SegmentHeaderDescriptor#FLAG_RECYCLED}): every byte
 * after the clean end must read as zero, but a recycled body holds stale bytes up to its write limit,
 * which is raised ahead of the writes. So the close writes zeros from the clean end to the end of its
 * block (direct I/O already wrote the whole block from the log buffer) and the header records that
 * block end as the limit, past which readers take the bytes for zeros. The zeros are synced before
 * the header is written: a power loss that kept the clean-close header but not the zeros would leave
 * stale bytes after the clean end, which recovery must take for damage.
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
