/**
 * Codecs inside the log: which codecs a log can read ({@link io.walden.internal.codec.CodecTable}),
 * the appenders' encoders ({@link io.walden.internal.codec.RecordEncoding}) and a reader's decoding
 * ({@link io.walden.internal.codec.PayloadDecoding}).
 */
package io.walden.internal.codec;
