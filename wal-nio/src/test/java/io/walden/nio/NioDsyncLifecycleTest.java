package io.walden.nio;

import io.walden.recovery.SegmentLifecycleContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** The segment lifecycle contract on the FileChannel backend whose writes are durable (O_DSYNC). */
class NioDsyncLifecycleTest extends SegmentLifecycleContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new NioStorageBackend(new StorageOptions(false, true));
    }
}
