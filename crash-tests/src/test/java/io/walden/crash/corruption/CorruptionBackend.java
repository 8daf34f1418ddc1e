package io.walden.crash.corruption;

import io.walden.nio.NioStorageBackend;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;
import io.walden.uring.UringStorageBackend;
import io.walden.uring.UringSupport;

/**
 * The real storage backends the corruption suites run against, both with buffered I/O so that
 * scratch logs can live on a tmpfs ({@code /dev/shm}), which refuses O_DIRECT.
 *
 * <p>The io_uring backend is required, never skipped: CI's kernel has io_uring, so a missing one is
 * a broken environment and fails the test with the reason.
 *
 * <p><b>Threading:</b> immutable.
 */
enum CorruptionBackend {
    /** FileChannel, {@code wal-nio}. */
    NIO,
    /** io_uring, {@code wal-uring}. */
    URING;

    /**
     * A new backend instance.
     *
     * @return the backend.
     * @throws AssertionError if io_uring is asked for and cannot run here.
     */
    StorageBackend create() {
        if (this == NIO) {
            return new NioStorageBackend(StorageOptions.BUFFERED);
        }
        final String unavailable = UringSupport.unavailableReason();
        if (unavailable != null) {
            throw new AssertionError("the io_uring corruption tests must run, not skip: " + unavailable);
        }
        return new UringStorageBackend(StorageOptions.BUFFERED);
    }
}
