package io.walden.nio;

import io.walden.WalContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/**
 * The backend contract, run against the FileChannel backend with O_DIRECT writes and fdatasync. The
 * temporary directory must be on a file system that supports O_DIRECT (not tmpfs).
 */
class NioDirectContractTest extends WalContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend(StorageOptions.DIRECT);
    }
}
