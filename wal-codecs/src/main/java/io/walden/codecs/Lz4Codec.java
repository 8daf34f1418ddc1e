package io.walden.codecs;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

import io.walden.codec.RecordCodec;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * LZ4 in the LZ4 frame format ({@link RecordCodec#LZ4_FRAME_ID}), so that a payload taken from a log
 * ({@code walden dump --raw}) decompresses with the {@code lz4} command line tool.
 *
 * <pre>
 *   0         4     5     6                    14    15
 *  +---------+-----+-----+--------------------+-----+--------------------------------+------------+
 *  | magic   | FLG | BD  | content size (u64) | HC  | blocks: [size (u32)][data] ... | end mark 0 |
 *  +---------+-----+-----+--------------------+-----+--------------------------------+------------+
 *   magic 0x184D2204; FLG 0x68: version 01, independent blocks, content size, no checksums, no
 *   dictionary; BD 0x70: blocks of at most 4 MiB; HC: (XXH32(FLG .. content size, 0) >> 8) &amp; 0xFF;
 *   a block size with its high bit set holds the block's bytes uncompressed. All little-endian.
 * </pre>
 *
 * <p>The frame's own checksums are left out: the Walden frame's CRC32C covers the stored bytes. The
 * decoder reads frames with them too (it skips them).
 *
 * <p><b>Threading:</b> immutable; its encoders and decoders are for one thread at a time.
 */
public final class Lz4Codec implements RecordCodec {
    static final int MAGIC = 0x184D2204;
    static final int MAGIC_OFFSET = 0;
    static final int FLG_OFFSET = 4;
    static final int BD_OFFSET = 5;
    static final int CONTENT_SIZE_OFFSET = 6;
    static final int HEADER_CHECKSUM_OFFSET = 14;
    static final int HEADER_LENGTH = 15;
    static final int END_MARK_LENGTH = 4;
    static final int BLOCK_SIZE_LENGTH = 4;
    static final int BLOCK_MAX_BYTES = 4 * 1024 * 1024;
    static final byte FLG = 0x68;
    static final byte BD = 0x70;
    static final int FLG_VERSION_MASK = 0xC0;
    static final int FLG_VERSION = 0x40;
    static final int FLG_BLOCK_CHECKSUM = 0x10;
    static final int FLG_CONTENT_SIZE = 0x08;
    static final int FLG_CONTENT_CHECKSUM = 0x04;
    static final int FLG_RESERVED = 0x02;
    static final int FLG_DICTIONARY_ID = 0x01;
    static final int BLOCK_UNCOMPRESSED = 0x80000000;

    private final boolean pureJava;

    /**
     * The codec with lz4-java where it is on the class path (its native library where that loads),
     * else the pure-Java one: what {@link java.util.ServiceLoader} makes.
     */
    public Lz4Codec() {
        this(!Libraries.lz4JavaPresent());
    }

    Lz4Codec(final boolean pureJava) {
        this.pureJava = pureJava;
    }

    @Override
    public int id() {
        return LZ4_FRAME_ID;
    }

    @Override
    public String name() {
        return pureJava ? "lz4 (pure Java)" : "lz4";
    }

    @Override
    public int maxEncodedLength(final int length) {
        final int blocks = Math.max(1, (length + BLOCK_MAX_BYTES - 1) / BLOCK_MAX_BYTES);
        return HEADER_LENGTH
                + END_MARK_LENGTH
                + blocks * BLOCK_SIZE_LENGTH
                + Lz4Blocks.maxCompressedLength(length)
                + (blocks - 1) * 16;
    }

    @Override
    public Encoder newEncoder() {
        return new FrameEncoder(blocks());
    }

    @Override
    public Decoder newDecoder() {
        return new FrameDecoder(blocks());
    }

    @Override
    public String toString() {
        return name();
    }

    private Lz4Blocks blocks() {
        return pureJava ? new AirliftLz4Blocks() : Libraries.lz4JavaBlocks();
    }

    /** Writes LZ4 frames. <b>Threading:</b> one thread at a time. */
    private static final class FrameEncoder implements Encoder {
        private final Lz4Blocks blocks;

        FrameEncoder(final Lz4Blocks blocks) {
            this.blocks = blocks;
        }

        @Override
        public int encode(
                final DirectBuffer source,
                final int sourceOffset,
                final int length,
                final MutableDirectBuffer target,
                final int targetOffset,
                final int targetCapacity) {
            target.putInt(targetOffset + MAGIC_OFFSET, MAGIC, LITTLE_ENDIAN);
            target.putByte(targetOffset + FLG_OFFSET, FLG);
            target.putByte(targetOffset + BD_OFFSET, BD);
            target.putLong(targetOffset + CONTENT_SIZE_OFFSET, length, LITTLE_ENDIAN);
            final int headerChecksum =
                    XxHash32.hash(target, targetOffset + FLG_OFFSET, HEADER_CHECKSUM_OFFSET - FLG_OFFSET, 0);
            target.putByte(targetOffset + HEADER_CHECKSUM_OFFSET, (byte) (headerChecksum >>> 8));
            int at = targetOffset + HEADER_LENGTH;
            final int end = targetOffset + targetCapacity;
            for (int done = 0; done < length; ) {
                final int block = Math.min(BLOCK_MAX_BYTES, length - done);
                final int room = end - END_MARK_LENGTH - at - BLOCK_SIZE_LENGTH;
                final int compressed = blocks.compress(
                        source,
                        sourceOffset + done,
                        block,
                        target,
                        at + BLOCK_SIZE_LENGTH,
                        Math.min(room, Lz4Blocks.maxCompressedLength(block)));
                if (compressed < block) {
                    target.putInt(at, compressed, LITTLE_ENDIAN);
                    at += BLOCK_SIZE_LENGTH + compressed;
                } else {
                    target.putInt(at, block | BLOCK_UNCOMPRESSED, LITTLE_ENDIAN);
                    target.putBytes(at + BLOCK_SIZE_LENGTH, source, sourceOffset + done, block);
                    at += BLOCK_SIZE_LENGTH + block;
                }
                done += block;
            }
            target.putInt(at, 0, LITTLE_ENDIAN);
            return at + END_MARK_LENGTH - targetOffset;
        }

        @Override
        public void close() {
            // Nothing outside the heap.
        }
    }

    /** Reads LZ4 frames. <b>Threading:</b> one thread at a time. */
    private static final class FrameDecoder implements Decoder {
        private final Lz4Blocks blocks;

        FrameDecoder(final Lz4Blocks blocks) {
            this.blocks = blocks;
        }

        @Override
        public int decodedLength(final DirectBuffer source, final int offset, final int length) {
            if (length < HEADER_LENGTH + END_MARK_LENGTH
                    || source.getInt(offset + MAGIC_OFFSET, LITTLE_ENDIAN) != MAGIC
                    || (source.getByte(offset + FLG_OFFSET) & FLG_CONTENT_SIZE) == 0) {
                return -1;
            }
            final long contentSize = source.getLong(offset + CONTENT_SIZE_OFFSET, LITTLE_ENDIAN);
            return contentSize < 0 || contentSize > Integer.MAX_VALUE ? -1 : (int) contentSize;
        }

        @Override
        public int decode(
                final DirectBuffer source,
                final int offset,
                final int length,
                final MutableDirectBuffer target,
                final int targetOffset,
                final int targetCapacity) {
            final int end = offset + length;
            final int flags = checkHeader(source, offset, length);
            int at = offset + HEADER_LENGTH;
            int produced = 0;
            while (true) {
                require(at + BLOCK_SIZE_LENGTH <= end, "the frame ends inside a block size");
                final int sizeField = source.getInt(at, LITTLE_ENDIAN);
                at += BLOCK_SIZE_LENGTH;
                if (sizeField == 0) {
                    break;
                }
                final int size = sizeField & ~BLOCK_UNCOMPRESSED;
                require(size <= BLOCK_MAX_BYTES && at + size <= end, "a block runs past the frame");
                if ((sizeField & BLOCK_UNCOMPRESSED) != 0) {
                    require(produced + size <= targetCapacity, "the frame holds more than its content size");
                    target.putBytes(targetOffset + produced, source, at, size);
                    produced += size;
                } else {
                    produced += blocks.decompress(
                            source, at, size, target, targetOffset + produced, targetCapacity - produced);
                }
                at += size;
                if ((flags & FLG_BLOCK_CHECKSUM) != 0) {
                    at += Integer.BYTES;
                }
            }
            if ((flags & FLG_CONTENT_CHECKSUM) != 0) {
                at += Integer.BYTES;
            }
            require(at == end, "bytes follow the frame's end mark");
            return produced;
        }

        @Override
        public void close() {
            // Nothing outside the heap.
        }

        private static int checkHeader(final DirectBuffer source, final int offset, final int length) {
            require(length >= HEADER_LENGTH + END_MARK_LENGTH, "shorter than a frame header");
            require(source.getInt(offset + MAGIC_OFFSET, LITTLE_ENDIAN) == MAGIC, "not an LZ4 frame (magic)");
            final int flags = source.getByte(offset + FLG_OFFSET) & 0xFF;
            require((flags & FLG_VERSION_MASK) == FLG_VERSION, "an LZ4 frame version other than 01");
            require((flags & (FLG_RESERVED | FLG_DICTIONARY_ID)) == 0, "a dictionary or reserved flag");
            require((flags & FLG_CONTENT_SIZE) != 0, "no content size");
            final int headerChecksum =
                    XxHash32.hash(source, offset + FLG_OFFSET, HEADER_CHECKSUM_OFFSET - FLG_OFFSET, 0);
            require(
                    (byte) (headerChecksum >>> 8) == source.getByte(offset + HEADER_CHECKSUM_OFFSET),
                    "the header checksum does not match");
            return flags;
        }

        private static void require(final boolean condition, final String what) {
            if (!condition) {
                throw new IllegalArgumentException("malformed LZ4 frame: " + what);
            }
        }
    }
}
