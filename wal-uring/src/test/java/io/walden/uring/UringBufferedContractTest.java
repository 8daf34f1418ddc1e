package io.walden.uring;

import io.walden.WalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The WalContract suite on the io_uring backend with buffered writes + fdatasync. */
@EnabledIfIoUring
class UringBufferedContractTest extends WalContractTest {

    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.BUFFERED);
    }
}
