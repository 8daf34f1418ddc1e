/**
 * The record codec SPI: how a record's payload is encoded before it is framed (compression) and
 * decoded when it is read. Codecs come from the optional {@code wal-codecs} module or from the
 * application; the core depends on none. See {@link io.walden.codec.RecordCodec}.
 */
package io.walden.codec;
