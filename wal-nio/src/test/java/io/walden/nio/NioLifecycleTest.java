package io.walden.nio;

import io.walden.recovery.SegmentLifecycleContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The segment lifecycle contract on the buffered FileChannel backend. */
class NioLifecycleTest extends SegmentLifecycleContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend(StorageOptions.BUFFERED);
    }
}
