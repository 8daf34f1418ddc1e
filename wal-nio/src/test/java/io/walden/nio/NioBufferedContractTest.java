package io.walden.nio;

import io.walden.WalContractTest;
import io.walden.spi.StorageBackend;

/** The backend contract, run against the FileChannel backend with buffered writes and fdatasync. */
class NioBufferedContractTest extends WalContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend();
    }
}
