package io.walden.codecs;

import net.jpountz.lz4.LZ4Factory;

/**
 * Which of the optional native libraries this process has: lz4-java and zstd-jni may be left out of an
 * application that refuses native code, and the codecs then use aircompressor. A library counts as
 * present when its classes link and, for zstd-jni, its native library loads.
 *
 * <p><b>Threading:</b> thread-safe; each answer is found once.
 */
final class Libraries {
    private static volatile Boolean lz4Java;
    private static volatile Boolean zstdJni;

    private Libraries() {}

    static boolean lz4JavaPresent() {
        Boolean present = lz4Java;
        if (present == null) {
            try {
                LZ4Factory.fastestInstance();
                present = Boolean.TRUE;
            } catch (final LinkageError absent) {
                present = Boolean.FALSE;
            }
            lz4Java = present;
        }
        return present;
    }

    static Lz4Blocks lz4JavaBlocks() {
        return new Lz4JavaBlocks(LZ4Factory.fastestInstance());
    }

    static boolean zstdJniPresent() {
        Boolean present = zstdJni;
        if (present == null) {
            try {
                present = ZstdJniFrames.loads();
            } catch (final LinkageError absent) {
                present = Boolean.FALSE;
            }
            zstdJni = present;
        }
        return present;
    }
}
