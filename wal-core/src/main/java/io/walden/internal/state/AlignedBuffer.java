package io.walden.internal.state;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.agrona.BufferUtil;

/**
 * Direct memory aligned to a page, freed explicitly on {@link #close()} (which Agrona's aligned
 * allocation cannot be), so that a closed log holds no native memory.
 *
 * <p><b>Threading:</b> the owner frees it once no thread uses it.
 */
public final class AlignedBuffer implements AutoCloseable {
    /** Alignment of every buffer: a page, which satisfies O_DIRECT. */
    public static final int ALIGNMENT_BYTES = 4096;

    private final ByteBuffer allocation;
    private final ByteBuffer buffer;
    private boolean freed;

    public AlignedBuffer(final int capacityBytes) {
        allocation = ByteBuffer.allocateDirect(capacityBytes + ALIGNMENT_BYTES);
        final long address = BufferUtil.address(allocation);
        final int shift = (int) ((ALIGNMENT_BYTES - (address & (ALIGNMENT_BYTES - 1))) & (ALIGNMENT_BYTES - 1));
        allocation.position(shift).limit(shift + capacityBytes);
        buffer = allocation.slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    public ByteBuffer buffer() {
        return buffer;
    }

    @Override
    public void close() {
        if (!freed) {
            freed = true;
            BufferUtil.free(allocation);
        }
    }
}
