package io.walden.uring.ffm;

import io.walden.CallerIoContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** Interrupts of an appender running its own I/O, on the ring-owning io_uring backend, buffered (its sync on the caller is a direct fdatasync). */
@EnabledIfFfmUring
class FfmUringCallerIoTest extends CallerIoContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(StorageOptions.BUFFERED);
    }
}
