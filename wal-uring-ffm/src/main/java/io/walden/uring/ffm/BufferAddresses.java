package io.walden.uring.ffm;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The native addresses of the direct buffers a log writes from, in a small cache: the log writes from
 * a few buffers (its log buffer, a scratch block, header blocks), and finding a buffer's address
 * through {@link MemorySegment#ofBuffer} allocates.
 *
 * <p><b>Threading:</b> the holder of the log's I/O duty.
 */
final class BufferAddresses {
    private static final int SIZE = 4;

    private final ByteBuffer[] buffers = new ByteBuffer[SIZE];
    private final long[] addresses = new long[SIZE];
    private int next;

    /**
     * The address of a direct buffer's first byte (index 0, whatever its position).
     *
     * @param buffer a direct buffer.
     * @return its address.
     * @throws IllegalArgumentException if the buffer is not direct.
     */
    long addressOf(final ByteBuffer buffer) {
        for (int i = 0; i < SIZE; i++) {
            if (buffers[i] == buffer) {
                return addresses[i];
            }
        }
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("io_uring writes need a direct buffer");
        }
        // A segment of a buffer starts at the buffer's position: take the position off for its base.
        final long address = MemorySegment.ofBuffer(buffer).address() - buffer.position();
        buffers[next] = buffer;
        addresses[next] = address;
        next = (next + 1) % SIZE;
        return address;
    }

    /** Forgets every buffer (the session closes), so that none is kept reachable. */
    void clear() {
        Arrays.fill(buffers, null);
    }
}
