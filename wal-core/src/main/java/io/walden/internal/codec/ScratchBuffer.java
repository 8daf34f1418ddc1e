package io.walden.internal.codec;

import io.walden.internal.state.Invariants;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Direct memory that grows (cold: only when a record needs more than ever before, up to a bound its
 * owner checks) and is freed explicitly, so that a closed log or reader holds no native memory. The
 * view wraps a direct {@link ByteBuffer}, as the codec SPI promises its implementations.
 *
 * <p><b>Threading:</b> owned by one thread at a time.
 */
final class ScratchBuffer implements AutoCloseable {
    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private final int limitBytes;
    private ByteBuffer allocation;

    /** The most it grows to; a larger need is the owner's error. */
    ScratchBuffer(final int limitBytes) {
        this.limitBytes = limitBytes;
    }

    /**
     * The memory, with at least {@code capacityBytes}; what it held is lost when it grows. It grows to
     * twice what it held, or to what is needed, and never past its limit.
     */
    UnsafeBuffer ensure(final int capacityBytes) {
        if (allocation == null || allocation.capacity() < capacityBytes) {
            Invariants.check(
                    capacityBytes <= limitBytes, "scratch of %d bytes past its limit of %d", capacityBytes, limitBytes);
            final int held = allocation == null ? 0 : allocation.capacity();
            final int grown = (int) Math.min(limitBytes, Math.max(capacityBytes, 2L * held));
            free();
            allocation = ByteBuffer.allocateDirect(grown).order(ByteOrder.LITTLE_ENDIAN);
            view.wrap(allocation);
        }
        return view;
    }

    /** The bytes held now. */
    int capacityBytes() {
        return allocation == null ? 0 : allocation.capacity();
    }

    @Override
    public void close() {
        free();
        view.wrap(0, 0);
    }

    private void free() {
        if (allocation != null) {
            BufferUtil.free(allocation);
            allocation = null;
        }
    }
}
