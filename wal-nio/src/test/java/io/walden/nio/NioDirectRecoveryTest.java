package io.walden.nio;

import io.walden.recovery.RecoveryContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The recovery and corruption contract on the FileChannel backend with O_DIRECT writes. */
class NioDirectRecoveryTest extends RecoveryContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend(StorageOptions.DIRECT);
    }
}
