/**
 * The storage SPI: what a backend implements so that Walden can write through it. Backends depend
 * on this package and on {@code io.walden.format}; the core depends on no backend.
 */
package io.walden.spi;
