package io.walden.codecs;

import io.airlift.compress.MalformedInputException;
import io.airlift.compress.zstd.ZstdCompressor;
import io.airlift.compress.zstd.ZstdDecompressor;
import io.walden.codec.RecordCodec;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Zstandard frames in pure Java with aircompressor, through two heap arrays each encoder or decoder
 * keeps (grown to the largest record met).
 *
 * <p><b>Threading:</b> one thread at a time per encoder or decoder.
 */
final class AirliftZstdFrames {
    private AirliftZstdFrames() {}

    /** Compresses. */
    static final class FrameEncoder implements RecordCodec.Encoder {
        private final ZstdCompressor compressor = new ZstdCompressor();
        private byte[] in = new byte[0];
        private byte[] out = new byte[0];

        @Override
        public int encode(
                final DirectBuffer source,
                final int sourceOffset,
                final int length,
                final MutableDirectBuffer target,
                final int targetOffset,
                final int targetCapacity) {
            if (in.length < length) {
                in = new byte[length];
            }
            final int bound = compressor.maxCompressedLength(length);
            if (out.length < bound) {
                out = new byte[bound];
            }
            source.getBytes(sourceOffset, in, 0, length);
            final int compressed = compressor.compress(in, 0, length, out, 0, bound);
            if (compressed > targetCapacity) {
                throw new IllegalStateException(
                        "zstd gave " + compressed + " bytes, more than the bound of " + targetCapacity);
            }
            target.putBytes(targetOffset, out, 0, compressed);
            return compressed;
        }

        @Override
        public void close() {
            // Nothing outside the heap.
        }
    }

    /** Decompresses. */
    static final class FrameDecoder implements RecordCodec.Decoder {
        private final ZstdDecompressor decompressor = new ZstdDecompressor();
        private byte[] in = new byte[0];
        private byte[] out = new byte[0];

        @Override
        public int decodedLength(final DirectBuffer source, final int offset, final int length) {
            final byte[] input = input(source, offset, length);
            final long size;
            try {
                size = ZstdDecompressor.getDecompressedSize(input, 0, length);
            } catch (final MalformedInputException | IndexOutOfBoundsException ex) {
                return -1;
            }
            return size < 0 || size > Integer.MAX_VALUE ? -1 : (int) size;
        }

        @Override
        public int decode(
                final DirectBuffer source,
                final int offset,
                final int length,
                final MutableDirectBuffer target,
                final int targetOffset,
                final int targetCapacity) {
            final byte[] input = input(source, offset, length);
            if (out.length < targetCapacity) {
                out = new byte[targetCapacity];
            }
            final int decompressed;
            try {
                decompressed = decompressor.decompress(input, 0, length, out, 0, targetCapacity);
            } catch (final MalformedInputException | IndexOutOfBoundsException ex) {
                throw new IllegalArgumentException("malformed zstd frame: " + ex.getMessage(), ex);
            }
            target.putBytes(targetOffset, out, 0, decompressed);
            return decompressed;
        }

        @Override
        public void close() {
            // Nothing outside the heap.
        }

        private byte[] input(final DirectBuffer source, final int offset, final int length) {
            if (in.length < length) {
                in = new byte[length];
            }
            source.getBytes(offset, in, 0, length);
            return in;
        }
    }
}
