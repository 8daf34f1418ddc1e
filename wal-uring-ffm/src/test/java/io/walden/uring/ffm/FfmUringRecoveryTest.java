package io.walden.uring.ffm;

import io.walden.recovery.RecoveryContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The RecoveryContract suite on the FFM io_uring backend with buffered writes. */
@EnabledIfFfmUring
class FfmUringRecoveryTest extends RecoveryContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(StorageOptions.BUFFERED);
    }
}
