package io.walden.codec;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * Encodes record payloads (compression); every frame it encoded names it by a 4-bit id, so a log may
 * mix plain and encoded frames. The frame checksum covers the stored bytes: only readers that hand
 * records to an application decode. Ids name a stored format, not an implementation (FORMAT.md,
 * "Codecs"); 12 to 15 are left to applications. The log passes buffers that wrap direct {@link
 * java.nio.ByteBuffer}s ({@link DirectBuffer#byteBuffer()}, offset by {@link
 * DirectBuffer#wrapAdjustment()}). See docs/design/codecs.md.
 *
 * <p><b>Threading:</b> immutable; its encoders and decoders are used by one thread at a time.
 */
public interface RecordCodec {
    /** The LZ4 frame format, with the content size (what the {@code lz4} tool reads). */
    int LZ4_FRAME_ID = 1;
    /** The Zstandard frame format, with the content size (what the {@code zstd} tool reads). */
    int ZSTD_FRAME_ID = 2;
    /** The first id left to applications' own codecs. */
    int PRIVATE_ID_MIN = 12;
    /** The largest id a frame can carry. */
    int ID_MAX = 15;

    /** @return the id its frames carry, from 1 to {@link #ID_MAX}. */
    int id();

    /** @return a short name for messages, for example {@code lz4}. */
    String name();

    /**
     * @param length a payload's length.
     * @return the most bytes its encoding may take.
     */
    int maxEncodedLength(int length);

    /** @return a new encoder, for one thread at a time. */
    Encoder newEncoder();

    /** @return a new decoder, for one thread at a time. */
    Decoder newDecoder();

    /**
     * @param id a codec id from a frame.
     * @return {@code lz4}, {@code zstd}, or {@code codec <id>}.
     */
    static String knownName(final int id) {
        return switch (id) {
            case LZ4_FRAME_ID -> "lz4";
            case ZSTD_FRAME_ID -> "zstd";
            default -> "codec " + id;
        };
    }

    /** Encodes payloads, allocating nothing per call. <b>Threading:</b> one thread at a time. */
    interface Encoder extends AutoCloseable {
        /**
         * Encodes {@code length} bytes of {@code source} into {@code target}, which has at least {@link
         * #maxEncodedLength(int)} bytes at {@code targetOffset}.
         *
         * @return the encoded length.
         */
        int encode(
                DirectBuffer source,
                int sourceOffset,
                int length,
                MutableDirectBuffer target,
                int targetOffset,
                int targetCapacity);

        /** Frees what the encoder holds outside the heap. */
        @Override
        void close();
    }

    /** Decodes payloads, allocating nothing per call. <b>Threading:</b> one thread at a time. */
    interface Decoder extends AutoCloseable {
        /** @return the decoded length the encoding's own header announces, or -1 if none. */
        int decodedLength(DirectBuffer source, int offset, int length);

        /**
         * Decodes an encoding whole, reading nothing outside it and writing nothing past {@code
         * targetCapacity}.
         *
         * @return the decoded length.
         * @throws IllegalArgumentException if the encoding is malformed or decodes to more than {@code
         *     targetCapacity}.
         */
        int decode(
                DirectBuffer source,
                int offset,
                int length,
                MutableDirectBuffer target,
                int targetOffset,
                int targetCapacity);

        /** Frees what the decoder holds outside the heap. */
        @Override
        void close();
    }
}
