package io.walden.nio;

import io.walden.WalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The backend contract, run against the FileChannel backend with buffered O_DSYNC writes. */
class NioDsyncContractTest extends WalContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend(new StorageOptions(false, true));
    }
}
