package io.walden.uring.ffm;

import io.walden.recovery.SegmentLifecycleContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The segment lifecycle contract on the FFM io_uring backend with O_DIRECT writes. */
@EnabledIfFfmUring
class FfmUringDirectLifecycleTest extends SegmentLifecycleContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(StorageOptions.DIRECT);
    }
}
