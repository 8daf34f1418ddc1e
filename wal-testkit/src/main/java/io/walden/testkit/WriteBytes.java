package io.walden.testkit;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The copy of a write's bytes that its {@link DiskEvent.Write} keeps. A log zero-fills every segment
 * it prepares, so most writes are zeros: those share one array per length rather than keep a copy
 * each, which keeps a history of a few MiB of log in a few MiB of memory.
 *
 * <p><b>Threading:</b> any thread; the shared arrays are never changed.
 */
final class WriteBytes {
    private static final ConcurrentHashMap<Integer, byte[]> ZEROS = new ConcurrentHashMap<>();
    /** Zeros to compare a write with before copying it: segment preparation writes blocks of 4 to 64 KiB. */
    private static final ByteBuffer ZERO_BLOCK =
            ByteBuffer.allocateDirect(1024 * 1024).asReadOnlyBuffer();

    private WriteBytes() {}

    /**
     * Copies a write's bytes.
     *
     * @param source the buffer.
     * @param offset where the bytes start in it.
     * @param lengthBytes how many.
     * @return the bytes, which no one may change.
     */
    /**
     * Whether a copy is the shared array of zeros of its length.
     *
     * @param bytes a copy {@link #copy} returned.
     * @return true if the write was all zeros.
     */
    static boolean isZeros(final byte[] bytes) {
        return ZEROS.get(bytes.length) == bytes;
    }

    static byte[] copy(final ByteBuffer source, final int offset, final int lengthBytes) {
        if (lengthBytes <= ZERO_BLOCK.capacity()
                && source.slice(offset, lengthBytes).mismatch(ZERO_BLOCK.slice(0, lengthBytes)) < 0) {
            return ZEROS.computeIfAbsent(lengthBytes, byte[]::new);
        }
        final byte[] bytes = new byte[lengthBytes];
        source.get(offset, bytes);
        return bytes;
    }
}
