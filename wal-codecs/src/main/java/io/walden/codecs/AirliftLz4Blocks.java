package io.walden.codecs;

import io.airlift.compress.MalformedInputException;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.lz4.Lz4Decompressor;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * LZ4 blocks in pure Java with aircompressor ({@code io.airlift:aircompressor}), through two heap
 * arrays the instance keeps (grown to the largest block met): aircompressor's buffer methods move
 * positions, its array methods do not.
 *
 * <p><b>Threading:</b> one thread at a time.
 */
final class AirliftLz4Blocks implements Lz4Blocks {
    private final Lz4Compressor compressor = new Lz4Compressor();
    private final Lz4Decompressor decompressor = new Lz4Decompressor();
    private byte[] in = new byte[0];
    private byte[] out = new byte[0];

    @Override
    public int compress(
            final DirectBuffer source,
            final int offset,
            final int length,
            final MutableDirectBuffer target,
            final int targetOffset,
            final int capacity) {
        final byte[] input = input(length);
        source.getBytes(offset, input, 0, length);
        final byte[] output = output(capacity);
        final int compressed = compressor.compress(input, 0, length, output, 0, capacity);
        target.putBytes(targetOffset, output, 0, compressed);
        return compressed;
    }

    @Override
    public int decompress(
            final DirectBuffer source,
            final int offset,
            final int length,
            final MutableDirectBuffer target,
            final int targetOffset,
            final int capacity) {
        final byte[] input = input(length);
        source.getBytes(offset, input, 0, length);
        final byte[] output = output(capacity);
        final int decompressed;
        try {
            decompressed = decompressor.decompress(input, 0, length, output, 0, capacity);
        } catch (final MalformedInputException | IndexOutOfBoundsException ex) {
            throw new IllegalArgumentException("malformed LZ4 block: " + ex.getMessage(), ex);
        }
        target.putBytes(targetOffset, output, 0, decompressed);
        return decompressed;
    }

    private byte[] input(final int length) {
        if (in.length < length) {
            in = new byte[length];
        }
        return in;
    }

    private byte[] output(final int length) {
        if (out.length < length) {
            out = new byte[length];
        }
        return out;
    }
}
