/**
 * Walden's record codecs ({@link io.walden.codecs.Codecs}): lz4 and zstd, each native (lz4-java,
 * zstd-jni) or pure Java (aircompressor). The libraries are static requirements: a codec needs only
 * its own, and on the module path the application resolves the ones it uses (they are automatic
 * modules, or zstd-jni's own). {@link io.walden.codecs.Lz4Codec} and {@link io.walden.codecs.ZstdCodec}
 * are registered with the core through {@link java.util.ServiceLoader}, so that any reader can
 * decode what they stored.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.walden.codecs {
    requires transitive io.walden.core;
    requires static org.lz4.java;
    requires static com.github.luben.zstd_jni;
    requires static aircompressor;

    exports io.walden.codecs;

    provides io.walden.codec.RecordCodec with
            io.walden.codecs.Lz4Codec,
            io.walden.codecs.ZstdCodec;
}
