package io.walden.bench.harness;

import java.nio.ByteBuffer;

/**
 * Record payloads for the writers: {@code recordBytes} bytes that differ by writer.
 *
 * <p><b>Threading:</b> stateless.
 */
final class Payloads {
    private Payloads() {}

    /**
     * A payload array.
     *
     * @param recordBytes length.
     * @param writerIndex the writer, mixed into the bytes.
     * @return the array.
     */
    static byte[] array(final int recordBytes, final int writerIndex) {
        final byte[] bytes = new byte[recordBytes];
        for (int i = 0; i < recordBytes; i++) {
            bytes[i] = (byte) (writerIndex * 31 + i);
        }
        return bytes;
    }

    /**
     * A payload in a direct buffer, position 0, limit at its length.
     *
     * @param recordBytes length.
     * @param writerIndex the writer, mixed into the bytes.
     * @return the buffer.
     */
    static ByteBuffer direct(final int recordBytes, final int writerIndex) {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(recordBytes);
        buffer.put(array(recordBytes, writerIndex)).clear();
        return buffer;
    }
}
