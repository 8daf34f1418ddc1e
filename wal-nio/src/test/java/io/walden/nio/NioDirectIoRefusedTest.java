package io.walden.nio;

import io.walden.DirectIoRefusalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The O_DIRECT refusal in words, on the FileChannel backend. */
class NioDirectIoRefusedTest extends DirectIoRefusalContractTest {
    @Override
    protected StorageBackend newBackend(final StorageOptions options) {
        return new NioStorageBackend(options);
    }
}
