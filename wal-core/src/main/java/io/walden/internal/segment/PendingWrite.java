package io.walden.internal.segment;

import java.nio.ByteBuffer;

/**
 * Whole blocks of a segment that recovery could not write for lack of space (copy on write needs new
 * space even to overwrite), left to the running log to write before anything else: a discard frame
 * that gives up the positions from {@code fromPosition} to {@code toPosition} past a crashed log's
 * last frame (readers step over that range meanwhile). {@code blocks} go at {@code fileOffset} of the
 * active segment, block-aligned and aligned for direct I/O, their capacity their length.
 */
public record PendingWrite(long fileOffset, ByteBuffer blocks, long fromPosition, long toPosition) {
    public int lengthBytes() {
        return blocks.capacity();
    }
}
