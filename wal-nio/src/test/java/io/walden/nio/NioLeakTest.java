package io.walden.nio;

import io.walden.OpenCloseLeakContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** No file descriptor, thread or direct memory leaks over many opens, on the FileChannel backend. */
class NioLeakTest extends OpenCloseLeakContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend(StorageOptions.BUFFERED);
    }
}
