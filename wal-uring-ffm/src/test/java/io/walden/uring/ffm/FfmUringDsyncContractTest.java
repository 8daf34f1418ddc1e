package io.walden.uring.ffm;

import io.walden.WalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The WalContract suite on the FFM io_uring backend with O_DIRECT + O_DSYNC writes (several in flight). */
@EnabledIfFfmUring
class FfmUringDsyncContractTest extends WalContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(new StorageOptions(true, true));
    }
}
