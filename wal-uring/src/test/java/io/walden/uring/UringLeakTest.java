package io.walden.uring;

import io.walden.OpenCloseLeakContractTest;
import io.walden.spi.StorageBackend;

/** No file descriptor, thread or direct memory leaks over many opens, on the io_uring backend. */
@EnabledIfIoUring
class UringLeakTest extends OpenCloseLeakContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend();
    }
}
