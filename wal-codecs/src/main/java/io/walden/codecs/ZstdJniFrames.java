package io.walden.codecs;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdException;
import io.walden.codec.RecordCodec;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Zstandard frames with zstd-jni, on the direct {@link java.nio.ByteBuffer}s under the views, at
 * absolute offsets, through a compression or decompression context each encoder or decoder keeps
 * (native memory, freed on close).
 *
 * <p><b>Threading:</b> one thread at a time per encoder or decoder.
 */
final class ZstdJniFrames {
    private ZstdJniFrames() {}

    /** Whether zstd-jni's native library loads here. */
    static boolean loads() {
        return Zstd.compressBound(1) > 0;
    }

    /** Compresses. */
    static final class FrameEncoder implements RecordCodec.Encoder {
        private final ZstdCompressCtx context = new ZstdCompressCtx();

        FrameEncoder(final int level) {
            context.setLevel(level);
            context.setContentSize(true);
            context.setChecksum(false);
        }

        @Override
        public int encode(
                final DirectBuffer source,
                final int sourceOffset,
                final int length,
                final MutableDirectBuffer target,
                final int targetOffset,
                final int targetCapacity) {
            return context.compressDirectByteBuffer(
                    target.byteBuffer(),
                    target.wrapAdjustment() + targetOffset,
                    targetCapacity,
                    source.byteBuffer(),
                    source.wrapAdjustment() + sourceOffset,
                    length);
        }

        @Override
        public void close() {
            context.close();
        }
    }

    /** Decompresses. */
    static final class FrameDecoder implements RecordCodec.Decoder {
        private final ZstdDecompressCtx context = new ZstdDecompressCtx();

        @Override
        public int decodedLength(final DirectBuffer source, final int offset, final int length) {
            final long size = Zstd.getDirectByteBufferFrameContentSize(
                    source.byteBuffer(), source.wrapAdjustment() + offset, length);
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
            try {
                return context.decompressDirectByteBuffer(
                        target.byteBuffer(),
                        target.wrapAdjustment() + targetOffset,
                        targetCapacity,
                        source.byteBuffer(),
                        source.wrapAdjustment() + offset,
                        length);
            } catch (final ZstdException ex) {
                throw new IllegalArgumentException("malformed zstd frame: " + ex.getMessage(), ex);
            }
        }

        @Override
        public void close() {
            context.close();
        }
    }
}
