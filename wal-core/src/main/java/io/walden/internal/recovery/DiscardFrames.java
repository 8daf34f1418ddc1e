package io.walden.internal.recovery;

import static io.walden.format.FrameDescriptor.CHECKSUM_OFFSET;
import static io.walden.format.FrameDescriptor.DURABLE_OFFSET_OFFSET;
import static io.walden.format.FrameDescriptor.FLAGS_OFFSET;
import static io.walden.format.FrameDescriptor.LENGTH_OFFSET;
import static io.walden.format.FrameDescriptor.SHORT_PADDING_LENGTH;
import static io.walden.format.FrameDescriptor.TYPE_DISCARD;
import static io.walden.format.FrameDescriptor.TYPE_OFFSET;
import static io.walden.format.FrameDescriptor.TYPE_PADDING;

import io.walden.format.FrameChecksum;
import io.walden.format.FrameDescriptor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Encodes the discard frame that recovery writes over positions the log gives up: from its offset to
 * the end of its segment or to the write limit where the log continues, checksummed over its header only (see {@link
 * io.walden.format.FrameDescriptor#TYPE_DISCARD}). The bytes it covers must already be zero. Where
 * only eight bytes are left, it is a short padding frame instead, which holds no header.
 *
 * <p><b>Threading:</b> stateless.
 */
final class DiscardFrames {
    private DiscardFrames() {}

    static void write(
            final ByteBuffer buffer,
            final int index,
            final long position,
            final long offset,
            final int endOffset,
            final long logId) {
        writeFrame(buffer, index, position, offset, endOffset, logId, TYPE_DISCARD);
    }

    /**
     * Writes a padding frame from an offset to an end offset (a short one for eight bytes), for the
     * rest of a range SKIP skipped past a discard frame's end. Its checksum covers the whole frame: the
     * buffer holds it all, its body zero.
     */
    static void writePadding(
            final ByteBuffer buffer,
            final int index,
            final long position,
            final long offset,
            final int endOffset,
            final long logId) {
        writeFrame(buffer, index, position, offset, endOffset, logId, TYPE_PADDING);
    }

    private static void writeFrame(
            final ByteBuffer buffer,
            final int index,
            final long position,
            final long offset,
            final int endOffset,
            final long logId,
            final short type) {
        buffer.order(ByteOrder.LITTLE_ENDIAN);
        final int frameLength = (int) (endOffset - offset);
        buffer.putInt(index + LENGTH_OFFSET, frameLength);
        if (frameLength > SHORT_PADDING_LENGTH) {
            buffer.putShort(index + TYPE_OFFSET, type);
            buffer.putShort(index + FLAGS_OFFSET, (short) 0);
            buffer.putInt(index + DURABLE_OFFSET_OFFSET, (int) offset);
        }
        // Eight bytes hold no header: a short padding frame (length and checksum only) covers them, as
        // the writer closes a segment that ends so.
        buffer.putInt(
                index + CHECKSUM_OFFSET,
                new FrameChecksum(logId)
                        .compute(
                                buffer,
                                index,
                                frameLength,
                                FrameDescriptor.checksummedLength(frameLength, type),
                                position));
    }
}
