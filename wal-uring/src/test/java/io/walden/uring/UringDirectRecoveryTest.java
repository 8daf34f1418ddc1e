package io.walden.uring;

import io.walden.recovery.RecoveryContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The RecoveryContract suite on the io_uring backend with O_DIRECT writes. */
@EnabledIfIoUring
class UringDirectRecoveryTest extends RecoveryContractTest {

    @Override
    protected StorageBackend newBackend() {
        return new UringStorageBackend(StorageOptions.DIRECT);
    }
}
