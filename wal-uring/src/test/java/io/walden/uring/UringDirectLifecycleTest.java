package io.walden.uring;

import io.walden.recovery.SegmentLifecycleContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The segment lifecycle contract on the io_uring backend with O_DIRECT writes. */
@EnabledIfIoUring
class UringDirectLifecycleTest extends SegmentLifecycleContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.DIRECT);
    }
}
