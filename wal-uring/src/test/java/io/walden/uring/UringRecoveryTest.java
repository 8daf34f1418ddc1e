package io.walden.uring;

import io.walden.recovery.RecoveryContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The RecoveryContract suite on the io_uring backend with buffered writes. */
@EnabledIfIoUring
class UringRecoveryTest extends RecoveryContractTest {

    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.BUFFERED);
    }
}
