package io.walden.uring.ffm;

import io.walden.WalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The WalContract suite on the FFM io_uring backend with buffered O_DSYNC writes. */
@EnabledIfFfmUring
class FfmUringBufferedDsyncContractTest extends WalContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(new StorageOptions(false, true));
    }
}
