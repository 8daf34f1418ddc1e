package io.walden.uring.ffm;

import io.walden.recovery.SegmentLifecycleContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The segment lifecycle contract on the FFM io_uring backend with O_DIRECT + O_DSYNC writes. */
@EnabledIfFfmUring
class FfmUringDsyncLifecycleTest extends SegmentLifecycleContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(new StorageOptions(true, true));
    }
}
