/**
 * Record codecs for Walden: {@link io.walden.codecs.Codecs} makes them, {@link
 * io.walden.codecs.Lz4Codec} and {@link io.walden.codecs.ZstdCodec} store the standard frame formats
 * that the {@code lz4} and {@code zstd} command line tools read.
 */
package io.walden.codecs;
