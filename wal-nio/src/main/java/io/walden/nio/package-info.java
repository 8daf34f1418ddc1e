/**
 * The FileChannel storage backend for Walden: buffered or O_DIRECT writes, fdatasync on one sync
 * thread. Depends only on {@code io.walden.spi}.
 */
package io.walden.nio;
