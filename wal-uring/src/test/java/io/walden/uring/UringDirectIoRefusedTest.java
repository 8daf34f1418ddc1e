package io.walden.uring;

import io.walden.DirectIoRefusalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The O_DIRECT refusal in words, on the io_uring backend. */
@EnabledIfIoUring
class UringDirectIoRefusedTest extends DirectIoRefusalContractTest {
    @Override
    protected StorageBackend newBackend(final StorageOptions options) {
        return new UringStorageBackend(options);
    }
}
