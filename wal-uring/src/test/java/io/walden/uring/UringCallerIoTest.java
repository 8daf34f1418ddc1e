package io.walden.uring;

import io.walden.CallerIoContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** Interrupts of an appender running its own I/O, on the jasyncfio io_uring backend, buffered. */
@EnabledIfIoUring
class UringCallerIoTest extends CallerIoContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.BUFFERED);
    }
}
