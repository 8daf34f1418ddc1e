package io.walden.codecs;

import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * LZ4 blocks with lz4-java ({@code at.yawk.lz4:lz4-java}): its native library where it loads, its
 * Java implementation otherwise; the safe decompressor, which checks every length against the input.
 * Works on the direct {@link java.nio.ByteBuffer}s under the views, at absolute offsets: no copy.
 *
 * <p><b>Threading:</b> stateless; lz4-java's compressors are thread-safe.
 */
final class Lz4JavaBlocks implements Lz4Blocks {
    private final LZ4Compressor compressor;
    private final LZ4SafeDecompressor decompressor;

    Lz4JavaBlocks(final LZ4Factory factory) {
        this.compressor = factory.fastCompressor();
        this.decompressor = factory.safeDecompressor();
    }

    @Override
    public int compress(
            final DirectBuffer source,
            final int offset,
            final int length,
            final MutableDirectBuffer target,
            final int targetOffset,
            final int capacity) {
        return compressor.compress(
                source.byteBuffer(),
                source.wrapAdjustment() + offset,
                length,
                target.byteBuffer(),
                target.wrapAdjustment() + targetOffset,
                capacity);
    }

    @Override
    public int decompress(
            final DirectBuffer source,
            final int offset,
            final int length,
            final MutableDirectBuffer target,
            final int targetOffset,
            final int capacity) {
        try {
            return decompressor.decompress(
                    source.byteBuffer(),
                    source.wrapAdjustment() + offset,
                    length,
                    target.byteBuffer(),
                    target.wrapAdjustment() + targetOffset,
                    capacity);
        } catch (final LZ4Exception ex) {
            throw new IllegalArgumentException("malformed LZ4 block: " + ex.getMessage(), ex);
        }
    }
}
