package io.walden.codecs;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * LZ4 block compression (the raw block format inside an LZ4 frame), by one library or another.
 *
 * <p><b>Threading:</b> one thread at a time; an implementation may keep buffers between calls.
 */
interface Lz4Blocks {
    /**
     * Compresses a block.
     *
     * @return the compressed length, at most {@code capacity}.
     */
    int compress(
            DirectBuffer source, int offset, int length, MutableDirectBuffer target, int targetOffset, int capacity);

    /**
     * Decompresses a block whole, reading nothing outside the block and writing nothing past {@code
     * capacity}.
     *
     * @return the decompressed length.
     * @throws IllegalArgumentException if the block is malformed or decompresses to more than {@code
     *     capacity}.
     */
    int decompress(
            DirectBuffer source, int offset, int length, MutableDirectBuffer target, int targetOffset, int capacity);

    /**
     * The most a block of {@code length} bytes compresses to (LZ4_COMPRESSBOUND).
     *
     * @param length the block's length.
     * @return the bound.
     */
    static int maxCompressedLength(final int length) {
        return length + length / 255 + 16;
    }
}
