package io.walden.uring.ffm;

import io.walden.OpenCloseLeakContractTest;
import io.walden.spi.StorageBackend;

/** No file descriptor, thread or direct memory leaks over many opens, on the ring-owning io_uring backend. */
@EnabledIfFfmUring
class FfmUringLeakTest extends OpenCloseLeakContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend();
    }
}
