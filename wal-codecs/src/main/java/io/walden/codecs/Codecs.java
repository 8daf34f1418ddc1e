package io.walden.codecs;

import io.walden.codec.RecordCodec;

/**
 * The codecs of this module. Use one with {@code WalConfig.Builder.compression(Compression.with(codec))}.
 *
 * <p>lz4 compresses and decompresses fastest; zstd stores the fewest bytes. The native codecs need
 * lz4-java or zstd-jni; the pure-Java ones need only aircompressor, and store the same formats (a log
 * written with one reads with the other).
 *
 * <p><b>Threading:</b> stateless.
 */
public final class Codecs {
    private Codecs() {}

    /**
     * @return lz4 with lz4-java (native where its library loads), or in pure Java without it.
     */
    public static RecordCodec lz4() {
        return new Lz4Codec();
    }

    /** @return lz4 in pure Java (aircompressor). */
    public static RecordCodec lz4PureJava() {
        return new Lz4Codec(true);
    }

    /** @return zstd at its default level with zstd-jni, or in pure Java without it. */
    public static RecordCodec zstd() {
        return new ZstdCodec();
    }

    /**
     * @param level zstd's level, from 1 (fastest) to 22 (smallest).
     * @return zstd at that level, with zstd-jni.
     * @throws IllegalStateException if zstd-jni is not on the class path or its library does not load.
     */
    public static RecordCodec zstd(final int level) {
        if (level < 1 || level > 22) {
            throw new IllegalArgumentException("a zstd level is from 1 to 22: " + level);
        }
        if (!Libraries.zstdJniPresent()) {
            throw new IllegalStateException(
                    "zstd at level " + level + " needs zstd-jni (com.github.luben:zstd-jni) and its native library;"
                            + " use Codecs.zstdPureJava() without it");
        }
        return new ZstdCodec(false, level);
    }

    /** @return zstd in pure Java (aircompressor). */
    public static RecordCodec zstdPureJava() {
        return new ZstdCodec(true, ZstdCodec.LEVEL_DEFAULT);
    }
}
