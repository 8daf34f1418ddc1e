package io.walden.uring;

import io.walden.WalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The WalContract suite on the io_uring backend with O_DIRECT + O_DSYNC writes. */
@EnabledIfIoUring
class UringDsyncContractTest extends WalContractTest {

    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(new StorageOptions(true, true));
    }
}
