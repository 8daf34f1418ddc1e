package io.walden.uring.ffm;

import io.walden.recovery.RecoveryContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The RecoveryContract suite on the FFM io_uring backend with O_DIRECT writes. */
@EnabledIfFfmUring
class FfmUringDirectRecoveryTest extends RecoveryContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(StorageOptions.DIRECT);
    }
}
