package io.walden.internal.recovery;

import io.walden.format.FrameDescriptor;
import io.walden.format.SegmentHeaderDescriptor;

/**
 * How recovery covers a range that {@link io.walden.RecoveryPolicy#SKIP} skipped inside a segment, so
 * that it stays skipped under every policy: a pure function of the range, held apart so that its test
 * checks every shape of range.
 *
 * <p>A discard frame ends a batch, but ends only at the segment's end or at a 4096-byte block boundary
 * (FORMAT.md); a padding frame ends anywhere, but may not follow a frame whose batch goes on. So the
 * range is covered by a discard frame from its start to the last block boundary in it, then a padding
 * frame to its end; where no discard frame fits (no boundary at least 16 bytes past the start) a padding
 * frame covers it all, unless a batch is open at its start: then nothing can, and the range is left as
 * it is (skipped again by every open under {@code SKIP}).
 *
 * <pre>
 *   from          block boundary         to
 *   | discard frame |  padding frame     | valid frames ...
 * </pre>
 *
 * <p><b>Threading:</b> stateless.
 */
final class SkipCover {
    /**
     * A discard frame from the range's start to {@code discardEndOffset} (none if that is the start),
     * then a padding frame from there to the range's end (none if that is the end).
     */
    record Cover(long discardEndOffset) {}

    private static final long BLOCK = SegmentHeaderDescriptor.WRITE_LIMIT_ALIGNMENT;

    private SkipCover() {}

    /**
     * The cover of {@code [fromOffset, toOffset)}, both 8-byte aligned, in a segment of a capacity, or
     * null if none fits ({@code batchOpen}: the frame before the range says its batch goes on).
     */
    static Cover cover(final long fromOffset, final long toOffset, final long capacityBytes, final boolean batchOpen) {
        if (fromOffset < SegmentHeaderDescriptor.HEADER_LENGTH
                || fromOffset >= toOffset
                || toOffset > capacityBytes
                || fromOffset % FrameDescriptor.FRAME_ALIGNMENT != 0
                || toOffset % FrameDescriptor.FRAME_ALIGNMENT != 0) {
            throw new IllegalArgumentException(
                    "not a skipped range: [" + fromOffset + ", " + toOffset + ") in " + capacityBytes + " bytes");
        }
        final long discardEnd = toOffset == capacityBytes ? toOffset : toOffset / BLOCK * BLOCK;
        if (discardEnd - fromOffset >= FrameDescriptor.HEADER_LENGTH) {
            return new Cover(discardEnd);
        }
        // A frame of 8 bytes holds no header: a short padding frame, which cannot end a batch either.
        return batchOpen ? null : new Cover(fromOffset);
    }
}
