package io.walden.uring.ffm;

import io.walden.CallerIoContractTest;
import io.walden.spi.StorageBackend;
import io.walden.spi.StorageOptions;

/** Interrupts of an appender running its own I/O, on the ring-owning io_uring backend with O_DIRECT + O_DSYNC (its write on the caller is a direct pwrite). */
@EnabledIfFfmUring
class FfmUringDsyncCallerIoTest extends CallerIoContractTest {
    @Override
    protected StorageBackend newBackend() {
        return new FfmUringStorageBackend(new StorageOptions(true, true));
    }

    /** The appender's own write is a pwrite(2), which a Java interrupt does not disturb: it completes. */
    @Override
    protected boolean interruptInsideAnOperationReachesTheAppend() {
        return false;
    }
}
