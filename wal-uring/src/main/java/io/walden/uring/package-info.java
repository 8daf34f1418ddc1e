/**
 * The io_uring storage backend for Walden, on jasyncfio 0.0.7 (linux-amd64). Depends only on
 * {@code io.walden.spi} and jasyncfio.
 */
package io.walden.uring;
