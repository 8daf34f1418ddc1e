package io.walden.testkit;

import java.nio.ByteBuffer;
import java.util.Arrays;
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

    private WriteBytes() {}

    /**
     * Copies a write's bytes.
     *
     * @param source the buffer.
     * @param offset where the bytes start in it.
     * @param lengthBytes how many.
     * @return the bytes, which no one may change.
     */
    static byte[] copy(final ByteBuffer source, final int offset, final int lengthBytes) {
        final byte[] bytes = new byte[lengthBytes];
        source.get(offset, bytes);
        final byte[] zeros = ZEROS.computeIfAbsent(lengthBytes, byte[]::new);
        return Arrays.equals(bytes, zeros) ? zeros : bytes;
    }
}
