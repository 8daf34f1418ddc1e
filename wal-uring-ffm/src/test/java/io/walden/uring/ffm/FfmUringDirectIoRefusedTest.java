package io.walden.uring.ffm;

import io.walden.DirectIoRefusalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The O_DIRECT refusal in words, on the FFM io_uring backend. */
@EnabledIfFfmUring
class FfmUringDirectIoRefusedTest extends DirectIoRefusalContractTest {
    @Override
    protected StorageBackend newBackend(final StorageOptions options) {
        return new FfmUringStorageBackend(options);
    }
}
