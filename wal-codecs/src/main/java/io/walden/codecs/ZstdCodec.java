package io.walden.codecs;

import io.walden.codec.RecordCodec;

/**
 * Zstandard in its frame format ({@link RecordCodec#ZSTD_FRAME_ID}, RFC 8878) with the content size,
 * so that a payload taken from a log ({@code walden dump --raw}) decompresses with the {@code zstd}
 * command line tool. With zstd-jni where it is on the class path and its native library loads,
 * else in pure Java with aircompressor (which compresses at its one level, about zstd's 3).
 *
 * <p><b>Threading:</b> immutable; its encoders and decoders are for one thread at a time.
 */
public final class ZstdCodec implements RecordCodec {
    /** The default level: zstd's own default. */
    public static final int LEVEL_DEFAULT = 3;

    private static final int BLOCK_BYTES = 128 * 1024;

    private final boolean pureJava;
    private final int level;

    /** The codec at the default level, native where it can be: what {@link java.util.ServiceLoader} makes. */
    public ZstdCodec() {
        this(!Libraries.zstdJniPresent(), LEVEL_DEFAULT);
    }

    ZstdCodec(final boolean pureJava, final int level) {
        this.pureJava = pureJava;
        this.level = level;
    }

    @Override
    public int id() {
        return ZSTD_FRAME_ID;
    }

    @Override
    public String name() {
        return pureJava ? "zstd (pure Java)" : "zstd level " + level;
    }

    /** ZSTD_COMPRESSBOUND, and room for a frame header. */
    @Override
    public int maxEncodedLength(final int length) {
        return length + (length >>> 8) + (length < BLOCK_BYTES ? (BLOCK_BYTES - length) >>> 11 : 0) + 32;
    }

    @Override
    public Encoder newEncoder() {
        return pureJava ? new AirliftZstdFrames.FrameEncoder() : new ZstdJniFrames.FrameEncoder(level);
    }

    @Override
    public Decoder newDecoder() {
        return pureJava ? new AirliftZstdFrames.FrameDecoder() : new ZstdJniFrames.FrameDecoder();
    }

    @Override
    public String toString() {
        return name();
    }
}
