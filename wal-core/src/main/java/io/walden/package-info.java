/**
 * Walden's public API: {@link io.walden.Wal}, its configuration {@link io.walden.WalConfig}, the
 * per-append {@link io.walden.Durability} levels, {@link io.walden.WalReader} and the exceptions.
 * Applications depend on this package only; the storage SPI is {@code io.walden.spi} and the
 * on-disk format is {@code io.walden.format} (specified in {@code FORMAT.md}).
 */
package io.walden;
